// A Slurm job's logs: one file per replica in JOB_DIR/logs (the contract's log
// lines, written by each task's dlp-run), plus the batch
// script's own output JOB_DIR/slurm.out shown as replica "slurm" (srun's and
// Slurm's messages, such as a time-limit kill). Following is tailing the files.
// A read starts with what rotation kept in NAME.log.1; a follow that sees
// NAME.log rotated goes on from the new file's start. Metrics
// (LogOptions::metrics_only) come from NAME.metrics.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "dlp/backend.h"

namespace dlp::internal {

// `finished` is asked between polls while following; once it says true the
// files are drained one last time and the call returns. Never blocks otherwise.
absl::Status ReadJobLogs(const std::string& job_dir, const LogOptions& options,
                         const LogSink& sink, const std::function<absl::StatusOr<bool>()>& finished);

}  // namespace dlp::internal
