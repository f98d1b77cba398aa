// The controller's jobs as the scheduling policy sees them (snapshot.h).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "server/scheduler/snapshot.h"
#include "server/store/job_store.h"

namespace dlp::server {

// A Queued job's demand, GPU replicas, limits and history.
PendingJob PendingOf(const JobRecord& record);
// A Running job's demand and the GPUs it holds.
RunningJob RunningOf(const JobRecord& record);

// Running and Queued jobs of `active` (Starting ones are neither: they are
// being started this round) on a machine of `capacity`.
Snapshot BuildSnapshot(const std::map<int64_t, JobRecord>& active,
                       const ResourceVector& capacity, absl::Time now);

}  // namespace dlp::server
