#include "backends/slurm/job_mapping.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "contract/dlp_run.h"
#include "contract/status.h"
#include "dlp/codec.h"
#include "dlp/replica_exit.h"
#include "job/job_group.h"

namespace dlp::internal {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Slurm says only "NonZeroExitCode": name the replica, and why it ended.
Job WithFailedReplica(Job job) {
  if (job.state == JobState::kFailed && job.reason == "NonZeroExitCode") {
    for (const JobReplica& r : job.replicas) {
      if (r.exit_code && *r.exit_code != 0) {
        job.reason = absl::StrCat("NonZeroExitCode: ", DescribeReplicaExit(r));
        break;
      }
    }
  }
  return job;
}

}  // namespace

JobState MapSlurmState(const std::string& state) {
  if (state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" ||
      state == "REQUEUE_FED" || state == "RESV_DEL_HOLD" || state == "CONFIGURING") {
    return JobState::kQueued;
  }
  if (state == "COMPLETED") return JobState::kSucceeded;
  if (state == "CANCELLED") return JobState::kCancelled;
  if (state == "FAILED" || state == "TIMEOUT" || state == "OUT_OF_MEMORY" ||
      state == "NODE_FAIL" || state == "BOOT_FAIL" || state == "DEADLINE" ||
      state == "PREEMPTED" || state == "REVOKED") {
    return JobState::kFailed;
  }
  return JobState::kRunning;  // RUNNING, COMPLETING, SUSPENDED, STAGE_OUT, SIGNALING, ...
}

std::string MapSlurmReason(const SlurmJobRecord& record, JobState state) {
  if (state == JobState::kFailed) {
    if (record.state == "TIMEOUT") return "TimeLimit";
    if (record.state == "OUT_OF_MEMORY") return "OutOfMemory";
    if (record.state == "NODE_FAIL") return "NodeFail";
    if (record.state == "DEADLINE") return "Deadline";
    if (record.state == "PREEMPTED") return "Preempted";
    if (record.state == "BOOT_FAIL") return "BootFail";
  }
  if (state == JobState::kSucceeded || record.reason == "None") return "";
  // A job cancelled while it waited keeps why it waited: no reason to end with.
  if (state == JobState::kCancelled && record.reason == "Dependency") return "";
  return record.reason;
}

Job ToJob(const SlurmJobRecord& record, const std::string& job_dir) {
  Job job;
  job.id = record.id;
  job.name = record.name;
  job.tenant = record.user.empty() ? "default" : record.user;
  job.queue = record.partition;
  job.state = MapSlurmState(record.state);
  job.reason = MapSlurmReason(record, job.state);
  job.created = record.submitted;
  if (job.state != JobState::kQueued) job.started = record.started;
  if (IsTerminal(job.state)) {
    job.finished = record.ended;
    // wait(2) status: the low 7 bits are a signal, the next byte the exit code.
    const int signal = record.exit_status & 0x7f;
    const int code = (record.exit_status >> 8) & 0xff;
    job.exit_code = signal != 0 ? 128 + signal : code;
  }
  if (job_dir.empty()) return job;

  if (auto spec = JobSpecFromJson(ReadFile(job_dir + "/spec.json")); spec.ok()) {
    job.spec = *std::move(spec);
    job.name = job.spec.name;
  }
  // dlp-run's rank 0 keeps the group's status file; before it starts (or
  // without one) every replica is in the job's state.
  absl::StatusOr<std::optional<contract::GroupStatus>> status =
      contract::ReadStatusFile(contract::JobFolder{job_dir}.StatusFile());
  if (status.ok() && *status && !(*status)->replicas.empty()) {
    job.restart_count = (*status)->restarts;
    // Why replicas were stopped when the success policy's roles succeeded.
    if (job.state == JobState::kSucceeded) job.reason = (*status)->reason;
    job.replicas = JobReplicas(**status);
    for (JobReplica& replica : job.replicas) {
      // Slurm's state wins over a status file it outlived: a job Slurm ended
      // has no running replica, a requeued one none at all yet.
      if ((IsTerminal(job.state) && !IsTerminal(replica.state)) || job.state == JobState::kQueued) {
        replica.state = job.state;
      }
    }
    return WithFailedReplica(std::move(job));
  }
  for (const ReplicaSpec& r : job.spec.replicas) {
    for (int i = 0; i < r.count; ++i) {
      JobReplica replica;
      replica.role = r.role;
      replica.index = i;
      replica.name = absl::StrCat(r.role, "-", i);
      replica.state = job.state;
      if (job.state != JobState::kQueued) replica.host = record.nodes;
      job.replicas.push_back(std::move(replica));
    }
  }
  return job;
}

}  // namespace dlp::internal
