// Elastic jobs' side of the executor: a resize stops every rank (SIGUSR1
// first, which dlp-run forwards as a request to checkpoint and stop) and,
// once the processes are gone, leaves the job Queued at its new size with
// `reforming` set; the controller starts it again at once, on the resources
// it kept (docs/runtime-contract.md, "Elastic jobs").
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/executor/executor.h"

namespace dlp::server {
bool Executor::Resizing(const JobRecord& record) {
  return record.stop_requested_us && record.stop_state == JobRecord::kResizingStopState;
}

void Executor::RequestResize(JobRecord& record, std::vector<Event>& events) {
  if (record.job.state != JobState::kRunning || record.stop_requested_us) return;
  const absl::Time now = absl::Now();
  record.stop_requested_us = absl::ToUnixMicros(now);
  record.stop_state = JobRecord::kResizingStopState;
  record.stop_reason = record.resize_reason;
  events.push_back({now, "Resizing",
                    absl::StrCat(record.resize_reason, ": SIGUSR1 (checkpoint and stop), SIGKILL "
                                                       "after ",
                                 record.job.spec.preemption.grace_period_seconds,
                                 " s; the group re-forms with ", record.resize_to, " workers")});
}

void Executor::Reform(JobRecord& record, std::vector<Event>& events) {
  Job& job = record.job;
  const int size = record.resize_to;
  EndRun(record, absl::StrCat("re-forming with ", size, " workers"));
  job.size = size;
  ++job.resizes;  // DLP_RESIZE_COUNT; DLP_RESTART_COUNT stays
  record.placement = std::move(record.resize_placement);
  record.resize_placement.clear();
  record.resize_to = 0;
  record.reforming = true;
  events.push_back({absl::Now(), "Reforming",
                    absl::StrCat("every rank has stopped; starting ", job.size,
                                 " workers with DLP_RESIZE_COUNT=", job.resizes)});
}

}  // namespace dlp::server
