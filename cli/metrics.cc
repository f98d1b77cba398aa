// dlp metrics JOB... [--name loss] [-o table|json|csv] [--plot] [--png FILE]
// [--svg FILE] [--smooth N] [--replicas rank0|each|mean|min|max] [--log-y]:
// the training metrics a job's ranks reported (DLP_METRIC lines), charted one
// panel per metric, rank 0's series by default, several jobs overlaid.
// With --compare, runs side by side: each metric's final and best value per
// job, and one metric of every job overlaid.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "dlp/profile.h"
#include "dlp/status.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct MetricsFlags {
  std::vector<std::string> ids;
  std::string name;
  std::string replica;
  std::string output = "table";
  std::string x = "step";
  bool plot = false;
  bool compare = false;
  std::string png, svg;
  int smooth = 1;
  std::string replicas = "rank0";
  bool log_y = false;
};

// Each job's points, in the order the jobs were named.
absl::StatusOr<std::vector<std::pair<std::string, std::vector<MetricPoint>>>> Collect(
    Client& client, const MetricsFlags& flags) {
  std::vector<std::pair<std::string, std::vector<MetricPoint>>> runs;
  MetricsFilter filter;
  filter.name = flags.name;
  filter.replica = flags.replica;
  for (const std::string& id : flags.ids) {
    DLP_ASSIGN_OR_RETURN(std::vector<MetricPoint> points, client.Metrics(id, filter));
    runs.emplace_back(id, std::move(points));
  }
  return runs;
}

// The points of all runs; several jobs' replicas are told apart as "JOB/replica".
std::vector<MetricPoint> Flatten(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs) {
  std::vector<MetricPoint> points;
  for (const auto& [id, job_points] : runs) {
    for (MetricPoint p : job_points) {
      if (runs.size() > 1) p.replica = absl::StrCat(id, "/", p.replica);
      points.push_back(std::move(p));
    }
  }
  return points;
}

int TerminalWidth() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

// The --png and --svg images of `panels`, and with --plot a terminal chart per panel.
int Draw(const MetricsFlags& flags, const GlobalFlags& globals,
         const std::vector<ChartPanel>& panels, ChartOptions chart) {
  chart.log_y = flags.log_y;
  for (const auto& [path, format] : {std::pair{flags.png, ChartImageFormat::kPng},
                                     std::pair{flags.svg, ChartImageFormat::kSvg}}) {
    if (path.empty()) continue;
    absl::Status s = WriteCharts(panels, chart, format, path);
    if (!s.ok()) return ReportError(s);
  }
  if (!flags.plot) return Code(ExitCode::kSuccess);
  for (const ChartPanel& panel : panels) {
    const std::string title = absl::StrCat(panel.y_label, flags.log_y ? " (log10)" : "", " by ",
                                           flags.compare ? "step" : flags.x);
    std::printf("%s", PlotText(flags.log_y ? Log10Series(panel.series) : panel.series,
                               std::max(20, TerminalWidth() - 14), panels.size() > 1 ? 10 : 16,
                               title, UseColor(globals, STDOUT_FILENO))
                          .c_str());
  }
  return Code(ExitCode::kSuccess);
}

// The chart of --compare: one metric, one line per job (its lowest-rank
// replica's points, as the table's figures, so that replicas do not zigzag).
std::vector<Series> CompareSeries(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs,
    const std::string& name) {
  std::vector<Series> out;
  for (const auto& [job, points] : runs) {
    Series s;
    s.label = absl::StrCat("job ", job);
    const std::string replica = LowestRankReporting(points, name);
    for (const MetricPoint& p : points) {
      if (p.name == name && p.replica == replica) {
        s.points.push_back({static_cast<double>(p.step), p.value});
      }
    }
    if (!s.points.empty()) out.push_back(std::move(s));
  }
  return out;
}

int RunCompare(const MetricsFlags& flags, const GlobalFlags& globals, Client& client) {
  absl::StatusOr<std::vector<std::pair<std::string, std::vector<MetricPoint>>>> runs =
      Collect(client, flags);
  if (!runs.ok()) return ReportError(runs.status());
  const std::vector<MetricComparison> metrics = CompareRuns(*runs);
  if (metrics.empty()) return ReportError(absl::NotFoundError("no DLP_METRIC lines to compare"));
  if (flags.plot || !flags.png.empty() || !flags.svg.empty()) {
    const std::string name = flags.name.empty() ? metrics.front().name : flags.name;
    const std::vector<Series> series = SmoothSeries(CompareSeries(*runs, name), flags.smooth);
    ChartOptions chart;
    chart.title = absl::StrCat(name, " by step (jobs ", absl::StrJoin(flags.ids, ", "), ")");
    const int code = Draw(flags, globals, {ChartPanel{"", name, series}}, chart);
    if (code != 0) return code;
    if (flags.output == "table") return Code(ExitCode::kSuccess);
  }
  if (flags.output == "json") {
    std::printf("%s\n", ComparisonToJson(flags.ids, metrics).c_str());
    return Code(ExitCode::kSuccess);
  }
  std::vector<std::string> header = {"METRIC", "GOAL"};
  for (const std::string& id : flags.ids) header.push_back(absl::StrCat("JOB ", id));
  Table table(std::move(header));
  for (const MetricComparison& c : metrics) {
    std::vector<std::string> row = {c.name, c.goal == MetricGoal::kMinimize ? "min" : "max"};
    for (const std::string& id : flags.ids) {
      auto it = c.runs.find(id);
      row.push_back(it == c.runs.end() ? "-"
                                       : absl::StrFormat("%.6g (best %.6g)", it->second.final_value,
                                                         it->second.best));
    }
    table.AddRow(std::move(row));
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

// One panel per metric (--name picks one), each with the series --replicas
// asks for: a PNG/SVG with the panels stacked, a terminal chart per panel.
int DrawCharts(const MetricsFlags& flags, const GlobalFlags& globals,
               const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs) {
  absl::StatusOr<ReplicaSeries> which = ParseReplicaSeries(flags.replicas);
  if (!which.ok()) return ReportError(which.status());
  std::vector<ChartPanel> panels = MetricPanels(runs, *which, flags.x == "time");
  for (ChartPanel& panel : panels) {
    panel.series = SmoothSeries(std::move(panel.series), flags.smooth);
    panel.title = panels.size() > 1 ? absl::StrCat(panel.y_label, " by ", flags.x) : "";
  }
  const std::string what = panels.size() == 1 ? panels.front().y_label : "metrics";
  ChartOptions chart;
  chart.title = absl::StrCat(
      what, " by ", flags.x, flags.ids.size() > 1 ? " (jobs " : " (job ",
      absl::StrJoin(flags.ids, ", "), ")",
      flags.smooth > 1 ? absl::StrCat(", mean of ", flags.smooth, " points") : "");
  chart.x_label = flags.x == "time" ? "time (s)" : "step";
  chart.height = panels.size() > 1 ? 320 : 480;
  return Draw(flags, globals, panels, chart);
}

int RunMetrics(const MetricsFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  if (flags.compare) {
    if (flags.output == "csv") {
      PrintError("--compare writes a table or json, not csv");
      return Code(ExitCode::kUsage);
    }
    return RunCompare(flags, globals, **client);
  }
  absl::StatusOr<std::vector<std::pair<std::string, std::vector<MetricPoint>>>> runs =
      Collect(**client, flags);
  if (!runs.ok()) return ReportError(runs.status());
  const std::vector<MetricPoint> points = Flatten(*runs);
  if (flags.plot || !flags.png.empty() || !flags.svg.empty()) {
    if (points.empty()) return ReportError(absl::NotFoundError("no DLP_METRIC lines to plot"));
    int code = DrawCharts(flags, globals, *runs);
    if (code != 0 || flags.output == "table") return code;
  }
  if (flags.output == "json") {
    std::printf("%s\n", MetricsToJson(points).c_str());
  } else if (flags.output == "csv") {
    std::printf("%s", MetricsToCsv(points).c_str());
  } else {
    // The table summarises: the latest value of each metric per replica.
    struct Row {
      int count = 0;
      MetricPoint last;
      double min = 0, max = 0;
    };
    std::map<std::pair<std::string, std::string>, Row> rows;
    for (const MetricPoint& p : points) {
      Row& r = rows[{p.replica, p.name}];
      r.min = r.count == 0 ? p.value : std::min(r.min, p.value);
      r.max = r.count == 0 ? p.value : std::max(r.max, p.value);
      ++r.count;
      r.last = p;
    }
    Table table({"REPLICA", "NAME", "POINTS", "LAST STEP", "LAST", "MIN", "MAX"});
    for (const auto& [key, r] : rows) {
      table.AddRow({key.first, key.second, absl::StrCat(r.count), absl::StrCat(r.last.step),
                    absl::StrFormat("%.6g", r.last.value), absl::StrFormat("%.6g", r.min),
                    absl::StrFormat("%.6g", r.max)});
    }
    if (table.empty()) {
      std::printf("No metrics (programs report them with dlp_metric() or by printing "
                  "\"DLP_METRIC name=value step=N\").\n");
    } else {
      table.Print(stdout, UseColor(globals, STDOUT_FILENO));
    }
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterMetrics(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<MetricsFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "metrics", "Show the training metrics a job reported (DLP_METRIC lines)");
  cmd->add_option("JOB", flags->ids, "Job id(s); several jobs are overlaid")->required();
  cmd->add_option("--name", flags->name, "Only this metric (loss, accuracy, ...)");
  cmd->add_option("--replica", flags->replica, "Only this replica (worker-0)");
  cmd->add_option("-o,--output", flags->output, "Output format: table, json or csv")
      ->transform(Choices({"table", "json", "csv"}));
  cmd->add_flag("--plot", flags->plot, "Draw a chart in the terminal");
  cmd->add_option("--png", flags->png,
                  "Write the chart as a PNG image (title, labelled axes, a legend)")
      ->option_text("FILE");
  cmd->add_option("--svg", flags->svg, "Write the chart as an SVG image")->option_text("FILE");
  cmd->add_option("--smooth", flags->smooth,
                  "Draw each series as the mean of its last N points (1: as reported)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--replicas", flags->replicas,
                  "Each metric's series per job: rank0 (its lowest-rank replica), each (every "
                  "replica), or mean, min or max of the replicas at each step")
      ->transform(Choices({"rank0", "each", "mean", "min", "max"}));
  cmd->add_flag("--log-y", flags->log_y, "Draw the y axes on a log scale (values <= 0 left out)");
  cmd->add_flag("--compare", flags->compare,
                "Runs side by side: each metric's final and best value per job (with --plot: "
                "one metric of every job overlaid)");
  cmd->add_option("--x", flags->x, "Horizontal axis: step or time")
      ->transform(Choices({"step", "time"}));
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunMetrics(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
