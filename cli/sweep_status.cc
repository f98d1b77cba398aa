// dlp sweep status SWEEP [-o table|json] [--plot] [--png FILE]: the
// leaderboard of a sweep's trials, and their objective over the resource.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common.h"
#include "dlp/profile.h"
#include "sweep.h"
#include "table.h"

namespace dlp::cli {
namespace {

int TerminalWidth() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

std::string Params(const SweepTrial& t) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : t.params) parts.push_back(absl::StrCat(name, "=", value));
  return absl::StrJoin(parts, " ");
}

// One series per trial that reported: its objective at each resource.
absl::StatusOr<std::vector<Series>> Chart(Client& client, const Sweep& sweep) {
  std::vector<Series> out;
  MetricsFilter filter;
  filter.name = sweep.spec.objective.metric;
  for (const SweepTrial& t : sweep.trials) {
    if (t.job.empty() || !t.objective) continue;
    absl::StatusOr<std::vector<MetricPoint>> points = client.Metrics(t.job, filter);
    if (!points.ok()) return points.status();
    Series s;
    s.label = absl::StrCat("trial ", t.number);
    for (const MetricPoint& p : *points) {
      if (p.step < 0 || (!s.points.empty() && p.step <= s.points.back().first)) continue;
      s.points.push_back({static_cast<double>(p.step), p.value});
    }
    if (!s.points.empty()) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

void PrintLeaderboard(const Sweep& sweep, bool color) {
  std::printf("sweep %s (%s): %s; objective %s %s; search %s\n", sweep.id.c_str(),
              sweep.spec.name.c_str(), SweepStateName(sweep.state).data(),
              sweep.spec.objective.maximize ? "maximize" : "minimize",
              sweep.spec.objective.metric.c_str(),
              std::string(SearchAlgorithmName(sweep.spec.search.algorithm)).c_str());
  std::vector<const SweepTrial*> order;
  for (const SweepTrial& t : sweep.trials) order.push_back(&t);
  const bool maximize = sweep.spec.objective.maximize;
  std::stable_sort(order.begin(), order.end(), [&](const SweepTrial* a, const SweepTrial* b) {
    if (a->objective.has_value() != b->objective.has_value()) return a->objective.has_value();
    if (!a->objective) return false;
    return maximize ? *a->objective > *b->objective : *a->objective < *b->objective;
  });
  std::string resource =
      sweep.spec.search.resource == "epoch" ? "epochs" : sweep.spec.search.resource;
  absl::AsciiStrToUpper(&resource);
  Table table({"TRIAL", "JOB", "PARAMETERS", "OBJECTIVE", resource, "STATE", "OUTCOME"});
  for (const SweepTrial* t : order) {
    table.AddRow({absl::StrCat(t->number), t->job.empty() ? "-" : t->job, Params(*t),
                  t->objective ? absl::StrFormat("%.4g", *t->objective) : "-",
                  absl::StrCat(t->resource), std::string(TrialStateName(t->state)),
                  TrialOutcome(sweep, *t)});
  }
  if (table.empty()) {
    std::printf("No trials yet.\n");
  } else {
    table.Print(stdout, color);
  }
}

int ShowSweepStatus(const std::string& id, const std::string& output, bool plot,
                    const std::string& png, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Sweep> sweep = GetSweep(**client, id);
  if (!sweep.ok()) return ReportError(sweep.status());
  if (plot || !png.empty()) {
    absl::StatusOr<std::vector<Series>> series = Chart(**client, *sweep);
    if (!series.ok()) return ReportError(series.status());
    if (series->empty()) {
      return ReportError(absl::NotFoundError(absl::StrCat("no trial of sweep ", id, " reported ",
                                                          sweep->spec.objective.metric, " yet")));
    }
    const std::string title = absl::StrCat(sweep->spec.objective.metric, " by ",
                                           sweep->spec.search.resource, ", per trial");
    if (!png.empty()) {
      ChartOptions chart{.title = title,
                         .x_label = sweep->spec.search.resource,
                         .y_label = sweep->spec.objective.metric};
      absl::Status s = WriteChart(*series, chart, ChartImageFormat::kPng, png);
      if (!s.ok()) return ReportError(s);
    }
    if (plot) {
      std::printf("%s", PlotText(*series, std::max(20, TerminalWidth() - 14), 16, title,
                                 UseColor(globals, STDOUT_FILENO))
                            .c_str());
    }
    if (output == "table") return Code(ExitCode::kSuccess);
  }
  if (output == "json") {
    std::printf("%s\n", SweepStatusJson(*sweep).c_str());
  } else {
    PrintLeaderboard(*sweep, UseColor(globals, STDOUT_FILENO));
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace dlp::cli
