// How a run ends: the job's final state and reason from dlp-run's status (or
// its absence), an OOM kill told apart, what is left of the job killed, its
// cgroup removed, and the executor's memory of the runner forgotten.
#include <signal.h>
#include <sys/wait.h>

#include "absl/strings/str_cat.h"
#include "base/process/signal_name.h"
#include "dlp/replica_exit.h"
#include "dlp/spec.h"
#include "server/executor/executor.h"
#include "server/scheduler/resources.h"

namespace dlp::server {
namespace {

using base::SignalName;

// The replica whose failure failed the group: dlp-run stops the others with
// SIGTERM/SIGKILL afterwards, so prefer a non-zero exit, then another signal.
const JobReplica* FailureCause(const std::vector<JobReplica>& replicas) {
  const JobReplica* by_signal = nullptr;
  const JobReplica* any = nullptr;
  for (const JobReplica& r : replicas) {
    if (r.state != JobState::kFailed) continue;
    if (r.exit_code && *r.exit_code != 0) return &r;
    if (r.signal && *r.signal != SIGTERM && *r.signal != SIGKILL && !by_signal) by_signal = &r;
    if (!any) any = &r;
  }
  return by_signal ? by_signal : any;
}

}  // namespace

const JobReplica* Executor::MarkOomKilled(Job& job) {
  if (!options_.cgroups || options_.cgroups->OomKills(job.id) == 0) return nullptr;
  // The OOM killer sends SIGKILL; dlp-run's own stop of the others starts with SIGTERM.
  const JobReplica* first = nullptr;
  for (JobReplica& r : job.replicas) {
    if (r.state == JobState::kFailed && r.signal == SIGKILL) {
      r.reason = "OOMKilled";
      if (first == nullptr) first = &r;
    }
  }
  return first;
}

void Executor::Finalize(JobRecord& record, const std::optional<contract::GroupStatus>& status,
                        bool lost, std::vector<Event>& events) {
  Job& job = record.job;
  if (Preempting(record)) return Requeue(record, events);
  if (Resizing(record)) return Reform(record, events);
  if (record.stop_requested_us) {
    job.state = ParseJobState(record.stop_state).value_or(JobState::kCancelled);
    job.reason = record.stop_reason;
  } else if (status && status->state == contract::kSucceeded) {
    job.state = JobState::kSucceeded;
    // Empty, or why replicas were stopped (successPolicy).
    job.reason = status->reason;
    job.exit_code = 0;
  } else if (status && status->terminal()) {
    job.state = JobState::kFailed;
    const JobReplica* oom = MarkOomKilled(job);
    const JobReplica* cause = oom != nullptr ? oom : FailureCause(job.replicas);
    if (oom != nullptr) {
      job.reason = absl::StrCat("OOMKilled: ", DescribeReplicaExit(*oom),
                                ": the job reached its memory limit (",
                                FormatMemoryBytes(DemandOf(job.spec).memory_bytes), ")");
      job.exit_code = 128 + SIGKILL;
    } else if (cause != nullptr) {
      job.reason = DescribeReplicaExit(*cause);
      job.exit_code = cause->exit_code ? *cause->exit_code : 128 + cause->signal.value_or(0);
    } else {
      job.reason = status->reason.empty() ? "dlp-run reported a failure" : status->reason;
    }
  } else {
    job.state = JobState::kFailed;
    if (lost) {
      job.reason = "lost on daemon restart";
    } else {
      auto child = children_.find(static_cast<pid_t>(record.runner_pid));
      int ws = child != children_.end() ? child->second.value_or(0) : 0;
      job.reason = WIFSIGNALED(ws)
                       ? absl::StrCat("dlp-run killed by signal ", WTERMSIG(ws), " (",
                                      SignalName(WTERMSIG(ws)), ") before reporting a result")
                       : absl::StrCat("dlp-run exited with code ", WEXITSTATUS(ws),
                                      " before reporting a result");
      // The OOM killer may pick dlp-run itself rather than a replica.
      if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL && options_.cgroups &&
          options_.cgroups->OomKills(job.id) > 0) {
        job.reason = absl::StrCat("OOMKilled: ", job.reason, ": the job reached its memory limit (",
                                  FormatMemoryBytes(DemandOf(job.spec).memory_bytes), ")");
        job.exit_code = 128 + SIGKILL;
      }
    }
  }
  if (job.state != JobState::kSucceeded) KillEverything(record);
  RemoveCgroup(job.id);
  for (JobReplica& r : job.replicas) {
    if (job.state == JobState::kCancelled && r.state != JobState::kSucceeded) {
      r.state = JobState::kCancelled;
    } else if (!IsTerminal(r.state)) {
      r.state = job.state == JobState::kSucceeded ? JobState::kSucceeded : JobState::kFailed;
    }
  }
  job.finished = absl::Now();
  events.push_back({*job.finished, std::string(JobStateName(job.state)),
                    job.reason.empty() ? "job succeeded" : job.reason});
}

void Executor::Release(const JobRecord& record) {
  // Queued jobs (cancelled before they started) are released from API
  // threads while the loop may be spawning: they have nothing to forget.
  if (record.runner_pid <= 0) return;
  children_.erase(static_cast<pid_t>(record.runner_pid));
  status_seen_.erase(record.seq);
  termed_.erase(record.seq);
  killed_.erase(record.seq);
}

}  // namespace dlp::server
