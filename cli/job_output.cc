#include "job_output.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "command_table.h"
#include "common.h"
#include "dlp/codec.h"
#include "table.h"
#include "terminal_text.h"

namespace dlp::cli {

void AddOutputFlag(CLI::App& app, OutputFormat* format) {
  static const std::map<std::string, OutputFormat> kNames = {
      {"table", OutputFormat::kTable},
      {"wide", OutputFormat::kWide},
      {"json", OutputFormat::kJson},
      {"yaml", OutputFormat::kYaml}};
  app.add_option("-o,--output", *format, "Output format: table, wide, json or yaml")
      ->transform(CLI::CheckedTransformer(kNames, CLI::ignore_case))
      ->transform(Choices({"table", "wide", "json", "yaml"}))
      ->option_text("FORMAT");
}

std::string ColoredState(JobState state, bool color) {
  std::string_view sgr = kBold;
  switch (state) {
    case JobState::kQueued: sgr = kDim; break;
    case JobState::kRunning: sgr = kBlue; break;
    case JobState::kSucceeded: sgr = kGreen; break;
    case JobState::kFailed: sgr = kRed; break;
    case JobState::kCancelled: sgr = kYellow; break;
  }
  return Colorize(JobStateName(state), sgr, color);
}

std::string FormatAge(absl::Duration age) {
  if (age < absl::ZeroDuration()) age = absl::ZeroDuration();
  const int64_t seconds = absl::ToInt64Seconds(age);
  if (seconds < 120) return absl::StrCat(seconds, "s");
  if (seconds < 120 * 60) return absl::StrCat(seconds / 60, "m");
  if (seconds < 48 * 3600) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

std::string JobDuration(const Job& job, absl::Time now) {
  if (!job.started) return "-";
  const absl::Time end = job.finished ? *job.finished : now;
  return FormatAge(end - *job.started);
}

std::string ReplicaSummary(const Job& job) {
  int active = 0;
  for (const JobReplica& r : job.replicas) {
    if (r.state != JobState::kQueued) ++active;
  }
  return absl::StrCat(active, "/", job.replicas.size());
}

std::string ReplicaOutcome(const JobReplica& replica) {
  const std::string why = replica.reason.empty() ? "" : absl::StrCat(", ", replica.reason);
  if (replica.signal) {
    const char* name = sigabbrev_np(*replica.signal);
    return absl::StrCat(name ? absl::StrFormat("signal %d (SIG%s)", *replica.signal, name)
                             : absl::StrFormat("signal %d", *replica.signal),
                        why);
  }
  if (replica.exit_code) return absl::StrCat("exit ", *replica.exit_code, why);
  return replica.reason.empty() ? "-" : replica.reason;
}

std::string ElasticSize(const Job& job) {
  const std::string size = job.size > 0 ? absl::StrCat(job.size) : "-";
  for (const ReplicaSpec& r : job.spec.replicas) {
    if (IsElastic(r)) return absl::StrCat(size, " (", MinCountOf(r), "-", r.count, ")");
  }
  return size;  // a list's jobs come without their spec
}

std::string FormatDependencies(const JobSpec& spec) {
  std::vector<std::string> parts;
  for (const JobDependency& d : spec.depends_on) {
    parts.push_back(
        absl::StrCat("job ", d.job, " (", std::string(DependencyConditionName(d.condition)), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

std::string FormatTimestamp(const std::optional<absl::Time>& time) {
  if (!time) return "-";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *time, absl::UTCTimeZone());
}

namespace {

void PrintTable(const std::vector<Job>& jobs, bool wide, const GlobalFlags& globals) {
  const bool color = UseColor(globals, STDOUT_FILENO);
  const absl::Time now = absl::Now();
  std::vector<std::string> header = {"ID", "NAME", "STATE", "REPLICAS", "RESTARTS", "AGE",
                                     "DURATION"};
  if (wide) {
    header.insert(header.end(), {"QUEUE", "PRIORITY", "PREEMPTIONS", "POSITION", "EST. START",
                                 "EXIT", "SIZE", "CREATED", "REASON"});
  }
  Table table(header);
  for (const Job& job : jobs) {
    std::vector<std::string> row = {
        job.id,
        job.name.empty() ? "-" : TerminalSafe(job.name),
        ColoredState(job.state, color),
        ReplicaSummary(job),
        absl::StrCat(job.restart_count),
        job.created ? FormatAge(now - *job.created) : "-",
        JobDuration(job, now)};
    if (wide) {
      const bool queued = job.state == JobState::kQueued;
      row.insert(row.end(),
                 {TerminalSafe(job.queue), absl::StrCat(job.spec.priority),
                  absl::StrCat(job.preemptions),
                  queued && job.position ? absl::StrCat(*job.position) : "-",
                  queued ? FormatTimestamp(job.estimated_start) : "-",
                  job.exit_code ? absl::StrCat(*job.exit_code) : "-", ElasticSize(job),
                  FormatTimestamp(job.created),
                  job.reason.empty() ? "-" : TerminalSafe(job.reason)});
    }
    table.AddRow(std::move(row));
  }
  table.Print(stdout, color);
}

}  // namespace

void PrintJobs(const std::vector<Job>& jobs, OutputFormat format, bool as_list,
               const GlobalFlags& globals) {
  switch (format) {
    case OutputFormat::kTable:
    case OutputFormat::kWide:
      PrintTable(jobs, format == OutputFormat::kWide, globals);
      return;
    case OutputFormat::kJson: {
      const std::string text = as_list || jobs.size() != 1 ? JobsToJson(jobs, 2)
                                                           : JobToJson(jobs.front(), 2);
      std::printf("%s\n", text.c_str());
      return;
    }
    case OutputFormat::kYaml: {
      std::string text = as_list || jobs.size() != 1 ? JobsToYaml(jobs) : JobToYaml(jobs.front());
      if (text.empty() || text.back() != '\n') text += '\n';
      std::fputs(text.c_str(), stdout);
      return;
    }
  }
}

void PrintJobOutcome(const Job& job) {
  const std::string who =
      job.name.empty() ? absl::StrCat("job ", job.id) : absl::StrCat("job ", job.id, " (", job.name, ")");
  if (job.state == JobState::kCancelled) {
    std::fprintf(stderr, "dlp: %s was cancelled%s%s\n", TerminalSafe(who).c_str(),
                 job.reason.empty() ? "" : ": ", TerminalSafe(job.reason).c_str());
    return;
  }
  if (job.state != JobState::kFailed) return;
  // The replica that failed on its own: a non-zero exit first, then a signal
  // (the group's other replicas are usually terminated by a signal afterwards).
  const JobReplica* failing = nullptr;
  int best = 0;
  for (const JobReplica& r : job.replicas) {
    if (r.state != JobState::kFailed) continue;
    const int rank = r.exit_code && *r.exit_code != 0 && !r.signal ? 3 : r.signal ? 2 : 1;
    if (rank > best) {
      best = rank;
      failing = &r;
    }
  }
  std::string detail;
  if (failing != nullptr) {
    detail = failing->signal
                 ? absl::StrCat("replica ", failing->name, " was killed by ", ReplicaOutcome(*failing))
                 : failing->exit_code
                       ? absl::StrCat("replica ", failing->name, " exited with code ", *failing->exit_code)
                       : absl::StrCat("replica ", failing->name, " failed");
  } else if (job.exit_code) {
    detail = absl::StrCat("exit code ", *job.exit_code);
  }
  std::string line = absl::StrCat("dlp: ", who, " failed");
  if (!detail.empty()) absl::StrAppend(&line, ": ", detail);
  // The reason usually names the failing replica already; add it only when new.
  if (!job.reason.empty() && (failing == nullptr || job.reason.find(failing->name) == std::string::npos)) {
    absl::StrAppend(&line, detail.empty() ? ": " : " (", job.reason, detail.empty() ? "" : ")");
  }
  std::fprintf(stderr, "%s\n", TerminalSafe(line).c_str());
}

}  // namespace dlp::cli
