// Slurm's job records in dlp's job model: states, reasons, exit codes, and the
// job folder (spec.json written at submission, dlp-run's status.json with the
// restarts and each replica's end).
#pragma once

#include <optional>
#include <string>

#include "backends/slurm/transport.h"
#include "dlp/job.h"

namespace dlp::internal {

// PENDING -> Queued; RUNNING, COMPLETING, ... -> Running; COMPLETED -> Succeeded;
// CANCELLED -> Cancelled; FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ... -> Failed.
JobState MapSlurmState(const std::string& state);

// The reason dlp shows: Slurm's own ("Resources", "Priority") while queued;
// "TimeLimit", "OutOfMemory", "NodeFail" ... for how a job ended.
std::string MapSlurmReason(const SlurmJobRecord& record, JobState state);

// The whole Job. `job_dir` is the job's folder ("" when the job was not
// submitted by dlp); what it holds fills the spec, restarts and replicas.
Job ToJob(const SlurmJobRecord& record, const std::string& job_dir);

}  // namespace dlp::internal
