// dlp logs JOB [-f] [--replica worker-0] [--tail N] [--since 10m] [--timestamps]
// [--metrics]
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "command.h"
#include "common.h"
#include "log_stream.h"
#include "waiting.h"

namespace dlp::cli {
namespace {

struct LogsFlags {
  std::string id;
  bool follow = false;
  std::string replica;
  int64_t tail = -1;
  std::string since;
  bool timestamps = false;
  bool metrics = false;
};

// "10m", "1h30m", "45s" (relative to now) or an RFC 3339 time.
absl::StatusOr<absl::Time> ParseSince(const std::string& text) {
  absl::Duration ago;
  if (absl::ParseDuration(text, &ago) && ago >= absl::ZeroDuration()) return absl::Now() - ago;
  absl::Time time;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &time, &error)) return time;
  return absl::InvalidArgumentError(absl::StrCat(
      "--since wants a duration (10m, 1h30m) or an RFC 3339 time, got '", text, "'"));
}

int RunLogs(const LogsFlags& flags, const GlobalFlags& globals) {
  LogOptions options;
  options.replica = flags.replica;
  options.follow = flags.follow;
  options.tail = flags.tail;
  options.metrics = flags.metrics;
  if (!flags.since.empty()) {
    absl::StatusOr<absl::Time> since = ParseSince(flags.since);
    if (!since.ok()) return ReportError(since.status());
    options.since = *since;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  if (flags.follow) {
    absl::StatusOr<Job> started = WaitWhileQueued(**client, flags.id, WaitFlags{});
    if (!started.ok()) return ReportError(started.status());
  }
  LogPrintFlags print;
  print.prefix = flags.replica.empty();
  print.timestamps = flags.timestamps;
  absl::Status status = StreamLogs(**client, flags.id, options, print, globals);
  if (!status.ok()) return ReportError(status);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterLogs(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<LogsFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "logs", "Print a job's logs (every replica, each line prefixed with [replica])");
  cmd->add_option("JOB", flags->id, "Job id")->required();
  cmd->add_flag("-f,--follow", flags->follow,
                "Keep streaming until the job ends (exit 0 when the stream ends)");
  cmd->add_option("--replica", flags->replica, "Only this replica, e.g. worker-0")
      ->option_text("NAME");
  cmd->add_option("--tail", flags->tail, "Only the last N lines of each replica")
      ->option_text("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--since", flags->since, "Only lines newer than a duration (10m) or a time")
      ->option_text("WHEN");
  cmd->add_flag("--timestamps", flags->timestamps, "Print each line's time (RFC 3339, UTC)");
  cmd->add_flag("--metrics", flags->metrics,
                "Also print DLP_METRIC lines (left out by default; see dlp metrics)");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunLogs(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
