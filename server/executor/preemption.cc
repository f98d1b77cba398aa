// Preemption's side of the executor: a job stopped to make room for another
// goes back to its queue once its processes are gone (RequestStop with a
// final state of Queued).
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/executor/executor.h"

namespace dlp::server {

void Executor::EndRun(JobRecord& record, const std::string& reason) {
  Job& job = record.job;
  KillEverything(record);  // ranks that outlived dlp-run
  RemoveCgroup(job.id);
  // The next start must not take this run's status or output for its own
  // (ReconcileQueued reads them as "it ran"). Removed before the Queued
  // record is committed: a crash in between finds a Running job whose runner
  // is gone, and settles it here again.
  std::error_code ec;
  std::filesystem::remove(StatusPath(job.id), ec);
  std::filesystem::remove(RunnerOutput(job.id), ec);
  Release(record);
  job.state = JobState::kQueued;
  job.reason = reason;
  job.exit_code.reset();
  for (JobReplica& r : job.replicas) {
    r.state = JobState::kQueued;
    r.exit_code.reset();
    r.signal.reset();
    r.pid = 0;
    r.reason.clear();
  }
  record.runner_pid = 0;
  record.runner_start_time = 0;
  record.start_attempt = 0;  // not Starting
  record.stop_requested_us.reset();
  record.stop_state.clear();
  record.stop_reason.clear();
}

void Executor::Requeue(JobRecord& record, std::vector<Event>& events) {
  Job& job = record.job;
  EndRun(record, record.stop_reason);
  job.started.reset();
  job.finished.reset();
  ++job.preemptions;
  ++job.restart_count;  // the next start exports it as DLP_RESTART_COUNT
  events.push_back({absl::Now(), "Preempted",
                    absl::StrCat(job.reason, "; back in the queue (preemption ", job.preemptions,
                                 ", next start with DLP_RESTART_COUNT=", job.restart_count, ")")});
}

bool Executor::Preempting(const JobRecord& record) {
  return record.stop_requested_us && record.stop_state == JobStateName(JobState::kQueued);
}

absl::Duration Executor::GracePeriod(const JobRecord& record) const {
  return Preempting(record) || Resizing(record)
             ? absl::Seconds(record.job.spec.preemption.grace_period_seconds)
             : options_.grace_period;
}

}  // namespace dlp::server
