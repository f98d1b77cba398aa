#include "server/api/usage_history.h"

#include <algorithm>

#include "dlp/api_codec.h"
#include "nlohmann/json.hpp"

namespace dlp::server {

UsageHistory TenantUsageHistory(const std::vector<Job>& jobs, absl::Time end,
                                absl::Duration bucket, int buckets) {
  UsageHistory out;
  out.bucket = bucket;
  out.start = end - bucket * buckets;
  for (const Job& job : jobs) {
    if (!job.started) continue;
    const absl::Time from = std::max(*job.started, out.start);
    const absl::Time to = std::min(job.finished.value_or(end), end);
    if (to <= from) continue;
    double cores = 0, gpus = 0;
    for (const ReplicaSpec& r : job.spec.replicas) {
      cores += r.count * r.resources.cpu_millis / 1000.0;
      gpus += r.count * r.resources.gpu_millis / 1000.0;
    }
    TenantUsage& t = out.tenants[job.tenant];
    t.cpu_hours.resize(buckets);
    t.gpu_hours.resize(buckets);
    const int first = static_cast<int>((from - out.start) / bucket);
    for (int b = std::max(first, 0); b < buckets; ++b) {
      const absl::Time lo = std::max(from, out.start + bucket * b);
      const absl::Time hi = std::min(to, out.start + bucket * (b + 1));
      if (hi <= lo) break;
      const double hours = absl::ToDoubleHours(hi - lo);
      t.cpu_hours[b] += cores * hours;
      t.gpu_hours[b] += gpus * hours;
    }
  }
  return out;
}

std::string UsageHistoryToJson(const UsageHistory& history) {
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson tenants = OrderedJson::array();
  for (const auto& [name, use] : history.tenants) {
    tenants.push_back(
        OrderedJson{{"tenant", name}, {"cpuHours", use.cpu_hours}, {"gpuHours", use.gpu_hours}});
  }
  return OrderedJson{{"start", FormatApiTime(history.start)},
                     {"bucketSeconds", absl::ToInt64Seconds(history.bucket)},
                     {"tenants", std::move(tenants)}}
      .dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace dlp::server
