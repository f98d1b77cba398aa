// A job as the documents of the job contract between whoever starts a job and
// dlp-run (docs/runtime-contract.md): the group file dlp-run runs, and the
// replicas its status file reports. One translation for dlpd's executor,
// `dlp render` and the Slurm backend; a program that starts dlp-run itself
// writes the same group file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/job.h"

namespace dlp {

// The group file (JSON) for `spec`: its roles, restart and success policies,
// tracing and log limits. A fractional GPU is a whole device to dlp-run (dlpd
// shares devices by adding the group's `devices`).
std::string JobGroupJson(const JobSpec& spec);

// The replicas a status file (JSON) reports, each rank's state as a job state
// (Starting: Queued). InvalidArgument naming `source` and the field that is
// wrong.
absl::StatusOr<std::vector<JobReplica>> JobReplicasFromStatusJson(std::string_view status_json,
                                                                  const std::string& source);

}  // namespace dlp
