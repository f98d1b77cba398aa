// What each tenant's jobs held over a past window, in buckets: CPU-hours and
// GPU-hours, from the jobs' run times (started to finished, or now) and the
// resources their specs ask for, which dlpd reserves while they run. For the
// Usage page's history (GET /v1/usage/history, docs/api.md). Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "dlp/job.h"

namespace dlp::server {

struct TenantUsage {
  std::vector<double> cpu_hours, gpu_hours;  // one per bucket, oldest first
};

struct UsageHistory {
  absl::Time start;
  absl::Duration bucket;
  std::map<std::string, TenantUsage> tenants;  // only tenants with use in the window
};

// `buckets` buckets of `bucket` ending at `end`.
UsageHistory TenantUsageHistory(const std::vector<Job>& jobs, absl::Time end,
                                absl::Duration bucket, int buckets);

std::string UsageHistoryToJson(const UsageHistory& history);

}  // namespace dlp::server
