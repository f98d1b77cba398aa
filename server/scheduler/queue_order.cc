#include "server/scheduler/queue_order.h"

#include <algorithm>

namespace dlp::server::fair_share {

int64_t EffectivePriority(int priority, absl::Time submitted, absl::Time now) {
  if (submitted == absl::InfinitePast() || submitted >= now) return priority;
  absl::Duration rest;
  const int64_t steps = absl::IDivDuration(now - submitted, kAgeingStep, &rest);
  return int64_t{priority} + steps;
}

int64_t EffectivePriority(const PendingJob& job, absl::Time now) {
  return EffectivePriority(job.priority, job.submitted, now);
}

void SortQueue(std::vector<QueuedJob>& jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const QueuedJob& a, const QueuedJob& b) {
    if (a.effective_priority != b.effective_priority) {
      return a.effective_priority > b.effective_priority;
    }
    return a.job->seq < b.job->seq;
  });
}

}  // namespace dlp::server::fair_share
