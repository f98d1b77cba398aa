// Rendering jobs: `-o table|wide|json|yaml`, state colors, ages, and the
// stderr line that explains why a job did not succeed.
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "dlp/job.h"

namespace CLI {
class App;
}

namespace dlp::cli {

enum class OutputFormat { kTable, kWide, kJson, kYaml };

// Adds `-o,--output table|wide|json|yaml` to `app`.
void AddOutputFlag(CLI::App& app, OutputFormat* format);

// "Succeeded" in green on a color terminal, etc.
std::string ColoredState(JobState state, bool color);
// "5s", "3m", "2h", "4d"; "-" when unset.
std::string FormatAge(absl::Duration age);
// Time the job ran so far (or in total once finished); "-" before it started.
std::string JobDuration(const Job& job, absl::Time now);
// "2/3": replicas running or done out of the total.
std::string ReplicaSummary(const Job& job);
// "exit 3", "signal 9 (SIGKILL)", or "-".
std::string ReplicaOutcome(const JobReplica& replica);
std::string FormatTimestamp(const std::optional<absl::Time>& time);  // RFC 3339 or "-"
// An elastic job's workers now and, with its spec, its range: "2 (2-4)", "2",
// "- (2-4)" before it starts; "-" for a rigid job.
std::string ElasticSize(const Job& job);
// spec.dependsOn as "job 12 (succeeded), job 13 (finished)"; "" when none.
std::string FormatDependencies(const JobSpec& spec);

// Prints jobs to stdout in `format`; `as_list`: JSON/YAML as {"jobs":[...]}.
void PrintJobs(const std::vector<Job>& jobs, OutputFormat format, bool as_list,
               const GlobalFlags& globals);

// For a terminal job that did not succeed, prints on stderr which replica failed
// and how ("dlp: job 7 (train) failed: replica worker-1 exited with code 3").
void PrintJobOutcome(const Job& job);

}  // namespace dlp::cli
