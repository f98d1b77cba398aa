#include "server/api/usage_history.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

const absl::Time kEnd = absl::FromUnixSeconds(1'000'000'000);

Job Ran(const std::string& tenant, absl::Duration from_end, std::optional<absl::Duration> until,
        int count, int64_t cpu_millis, int64_t gpu_millis) {
  Job job;
  job.tenant = tenant;
  job.started = kEnd - from_end;
  if (until) job.finished = kEnd - *until;
  ReplicaSpec r;
  r.count = count;
  r.resources.cpu_millis = cpu_millis;
  r.resources.gpu_millis = gpu_millis;
  job.spec.replicas.push_back(r);
  return job;
}

TEST(UsageHistoryTest, SplitsEachJobsRunOverTheBucketsItOverlaps) {
  // 4 one-hour buckets ending at kEnd.
  std::vector<Job> jobs = {
      Ran("alice", absl::Minutes(150), absl::Minutes(30), 2, 500, 1000),  // 2 h of 1 CPU, 2 GPUs
      Ran("bob", absl::Minutes(30), std::nullopt, 1, 4000, 0),            // running: 0.5 h of 4
      Ran("bob", absl::Hours(10), absl::Hours(9), 1, 1000, 0),            // before the window
  };
  Job queued;
  queued.tenant = "carol";
  jobs.push_back(queued);
  UsageHistory h = TenantUsageHistory(jobs, kEnd, absl::Hours(1), 4);
  EXPECT_EQ(h.start, kEnd - absl::Hours(4));
  ASSERT_EQ(h.tenants.size(), 2u);  // carol never ran
  EXPECT_EQ(h.tenants["alice"].cpu_hours, (std::vector<double>{0, 0.5, 1, 0.5}));
  EXPECT_EQ(h.tenants["alice"].gpu_hours, (std::vector<double>{0, 1, 2, 1}));
  EXPECT_EQ(h.tenants["bob"].cpu_hours, (std::vector<double>{0, 0, 0, 2}));
  EXPECT_EQ(UsageHistoryToJson(TenantUsageHistory({}, kEnd, absl::Hours(1), 2)),
            R"({"start":"2001-09-08T23:46:40.000Z","bucketSeconds":3600,"tenants":[]})");
}

}  // namespace
}  // namespace dlp::server
