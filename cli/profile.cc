// dlp profile JOB [--trace out.json] [-o table|json] [--duration 30s] [--dir DIR]:
// merges the job's per-rank traces and summarises where step time goes.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "CLI/CLI.hpp"
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "dlp/profile.h"
#include "interrupt.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct ProfileFlags {
  std::string id;
  std::string dir;  // read the files here instead of asking the backend
  std::string trace_out;
  std::string output = "table";
  std::string duration;
};

absl::StatusOr<absl::Duration> ParseWindow(const std::string& text) {
  absl::Duration d;
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) return absl::Seconds(seconds);
  if (absl::ParseDuration(text, &d) && d > absl::ZeroDuration()) return d;
  return absl::InvalidArgumentError(
      absl::StrCat("--duration: '", text, "' is not a duration (30s, 2m, 1500ms)"));
}

std::string Ms(double ms) { return absl::StrFormat("%.2f", ms); }

// "reduce_scatter" as the summary's line title: "Reduce-scatter".
std::string CollectiveLabel(const std::string& op) {
  std::string label = op;
  std::replace(label.begin(), label.end(), '_', '-');
  if (!label.empty()) label[0] = absl::ascii_toupper(label[0]);
  return label;
}

void PrintTable(const Profile& p, const std::string& title, const GlobalFlags& globals) {
  const bool color = UseColor(globals, STDOUT_FILENO);
  std::printf("%s\n\n", Colorize(title, kBold, color).c_str());
  // Phase columns: every phase any rank reported, in first-seen order.
  std::vector<std::string> phases;
  for (const RankProfile& r : p.per_rank) {
    for (const PhaseTime& ph : r.phases) {
      if (std::find(phases.begin(), phases.end(), ph.name) == phases.end()) {
        phases.push_back(ph.name);
      }
    }
  }
  std::vector<std::string> header = {"RANK", "HOST", "STEPS", "P50 MS", "P95 MS", "MAX MS",
                                     "WORK MS", "COMM MS"};
  for (const std::string& ph : phases) header.push_back(absl::AsciiStrToUpper(ph) + " MS");
  Table table(header);
  for (const RankProfile& r : p.per_rank) {
    std::vector<std::string> row = {absl::StrCat(r.rank), r.host.empty() ? "-" : r.host,
                                    absl::StrCat(r.steps), Ms(r.step_p50_ms),
                                    Ms(r.step_p95_ms), Ms(r.step_max_ms), Ms(r.work_ms),
                                    Ms(r.comm_ms)};
    for (const std::string& name : phases) {
      std::string cell = "-";
      for (const PhaseTime& ph : r.phases) {
        if (ph.name == name) cell = Ms(ph.mean_ms);
      }
      row.push_back(cell);
    }
    if (p.straggler && p.straggler->rank == r.rank) {
      for (auto& c : row) c = Colorize(c, kYellow, color);
    }
    table.AddRow(row);
  }
  table.Print(stdout, color);
  std::printf("\nCommunication: %.1f%% of step time (compute %.1f%%)\n", p.comm_share * 100,
              p.compute_share * 100);
  if (p.overlapped_comm_share > 0) {
    std::printf("Overlapped:    %.1f%% of step time in collectives beside backward\n",
                p.overlapped_comm_share * 100);
  }
  for (const CollectiveStats& c : p.collectives) {
    const std::string label = absl::StrCat(CollectiveLabel(c.op), ":");
    if (c.op == "barrier") {
      std::printf("%-15s%d waits, %.3f ms each (median)\n", label.c_str(), c.count, c.median_ms);
    } else if (!c.HasBandwidth()) {
      std::printf("%-15s%d calls, %lld B each (median), %.3f ms each (median)\n", label.c_str(),
                  c.count, static_cast<long long>(c.bytes), c.median_ms);  // NOLINT(runtime/int)
    } else {
      std::printf("%-15s%d calls, %s each (median), bus bandwidth %.3f GB/s (median)\n",
                  label.c_str(), c.count, absl::StrFormat("%.1f KiB", c.bytes / 1024.0).c_str(),
                  c.busbw_GBps);
    }
  }
  if (p.straggler) {
    std::printf("Straggler:     %s (+%.2f ms per step)\n",
                Colorize(p.straggler->Describe(), kYellow, color).c_str(),
                p.straggler->phase_excess_ms);
  } else {
    std::printf("Straggler:     none (every rank within 10%% of the median)\n");
  }
  for (const RestartSegment& s : p.restarts) {
    std::printf("Throughput:    %s%d steps in %.2f s: %.2f steps/s, %.1f samples/s\n",
                p.restarts.size() > 1 ? absl::StrCat("restart ", s.restart, ": ").c_str() : "",
                s.steps, s.seconds, s.steps_per_s, s.samples_per_s);
  }
}

absl::StatusOr<std::vector<TraceFile>> Fetch(const ProfileFlags& flags, Client* client) {
  if (!flags.dir.empty()) return ReadTraceDir(flags.dir);
  return client->TraceFiles(flags.id);
}

// A window over the running job (or --dir); Ctrl-C ends it early. On a job
// that has ended, the files as recorded.
absl::StatusOr<WindowedTraces> Window(const ProfileFlags& flags, Client* client,
                                      absl::Duration length) {
  ProfileWindowOptions options;
  options.length = length;
  options.on_open = [length] {
    InstallInterruptHandler(InterruptMode::kFlag);
    std::fprintf(stderr, "profiling for %s...\n", absl::FormatDuration(length).c_str());
  };
  options.cancelled = [] { return Interrupted(); };
  if (client == nullptr) {
    return RecordProfileWindow([&] { return ReadTraceDir(flags.dir); }, options);
  }
  return client->ProfileWindow(flags.id, options);
}

int RunProfile(const ProfileFlags& flags, const GlobalFlags& globals) {
  if (flags.id.empty() && flags.dir.empty()) {
    PrintError("a JOB or --dir is required");
    return Code(ExitCode::kUsage);
  }
  std::unique_ptr<Client> client;
  if (flags.dir.empty()) {
    absl::StatusOr<std::unique_ptr<Client>> made = MakeClient(globals);
    if (!made.ok()) return ReportError(made.status());
    client = std::move(*made);
  }
  ProfileOptions options;
  std::string title = flags.dir.empty() ? absl::StrCat("Job ", flags.id) : flags.dir;
  std::optional<std::vector<TraceFile>> windowed;
  if (!flags.duration.empty()) {
    absl::StatusOr<absl::Duration> window = ParseWindow(flags.duration);
    if (!window.ok()) {
      PrintError(std::string(window.status().message()));
      return Code(ExitCode::kUsage);
    }
    absl::StatusOr<WindowedTraces> traces = Window(flags, client.get(), *window);
    if (!traces.ok()) return ReportError(traces.status());
    if (traces->windowed) absl::StrAppend(&title, ", window ", absl::FormatDuration(*window));
    options = std::move(traces->options);
    windowed = std::move(traces->files);
  }
  absl::StatusOr<std::vector<TraceFile>> files =
      windowed ? std::move(*windowed) : Fetch(flags, client.get());
  if (!files.ok()) return ReportError(files.status());
  if (files->empty()) {
    return ReportError(absl::NotFoundError(
        absl::StrCat("no trace files for ", title,
                     " (traces are written when ranks run with DLP_TRACE_DIR or DLP_TRACE=1)")));
  }
  absl::StatusOr<Profile> profile = SummarizeTraces(*files, options);
  if (!profile.ok()) return ReportError(profile.status());
  if (!flags.trace_out.empty()) {
    absl::StatusOr<std::string> merged = MergeTraces(*files, options);
    if (!merged.ok()) return ReportError(merged.status());
    std::ofstream out(flags.trace_out, std::ios::binary | std::ios::trunc);
    out << *merged;
    out.close();
    if (!out) {
      return ReportError(absl::UnavailableError(absl::StrCat("cannot write ", flags.trace_out)));
    }
  }
  if (flags.output == "json") {
    std::printf("%s\n", ProfileToJson(*profile).c_str());
  } else {
    absl::StrAppend(&title, ": ", profile->ranks, " ranks");
    PrintTable(*profile, title, globals);
    if (!flags.trace_out.empty()) {
      std::printf("Trace:         %s (open in https://ui.perfetto.dev or chrome://tracing)\n",
                  flags.trace_out.c_str());
    }
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterProfile(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ProfileFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "profile", "Merge a job's rank traces and show where step time goes");
  cmd->add_option("JOB", flags->id, "Job id");
  cmd->add_option("--trace", flags->trace_out,
                  "Write the merged Chrome trace (pid = rank) to this file")
      ->option_text("FILE");
  cmd->add_option("-o,--output", flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));
  cmd->add_option("--duration", flags->duration,
                  "Profile a running job over this window (30s, 2m)");
  cmd->add_option("--dir", flags->dir,
                  "Read rank-N.trace.json files from this folder (e.g. dlp-run --log-dir)")
      ->option_text("DIR");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunProfile(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
