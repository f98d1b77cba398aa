// The order of jobs within a queue: effective priority (higher first), then
// submission order. Ageing raises a waiting job's effective priority by one
// level per kAgeingStep waited, so a stream of higher-priority jobs delays a
// low-priority one only for a bounded time: a job 3 levels below the others
// overtakes newly submitted ones after 3 * kAgeingStep.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "server/scheduler/quota_accounting.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server::fair_share {

inline constexpr absl::Duration kAgeingStep = absl::Minutes(10);

// priority + whole kAgeingSteps since submission (none when unknown).
int64_t EffectivePriority(int priority, absl::Time submitted, absl::Time now);
int64_t EffectivePriority(const PendingJob& job, absl::Time now);

struct QueuedJob {
  const PendingJob* job = nullptr;
  int64_t effective_priority = 0;
  Amounts demand;  // job->demand, per dimension
};

// Sorts `jobs` into queue order.
void SortQueue(std::vector<QueuedJob>& jobs);

}  // namespace dlp::server::fair_share
