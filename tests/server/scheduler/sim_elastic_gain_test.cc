// A trace small enough to work out by hand where elastic jobs beat the same
// trace rigid on mean completion time, under the default policy in the
// simulator (resizes pause the group for the grace period, work at size/count
// of the full rate):
//
// On 8 one-GPU devices, job 1 (4 GPUs, 2 h) starts at once; job 2 (8 GPUs,
// 1 h of work at 8) arrives a minute later; job 3 (2 GPUs, 30 min) a minute
// after that. Rigid, job 2 waits for job 1 (2 h) and job 3 backfills. Elastic
// (minCount 2), job 2 starts at 4 beside job 1, gives 2 workers back for job
// 3, takes them again when job 3 ends and grows to 8 when job 1 ends: it is
// done almost an hour sooner, and job 3 starts only the re-forming later.
#include <gtest/gtest.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/simulator.h"

namespace dlp::server {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'767'225'600);

ResourceVector Gpus(int n) { return {n * 1000, 0, n * 1000}; }

// `gpus` one-GPU workers; elastic down to `min` when `min` > 0.
SimJob Job(int64_t seq, absl::Duration arrives, int gpus, absl::Duration runtime, int min = 0) {
  SimJob sim{.runtime = runtime};
  sim.job = {.seq = seq,
             .tenant = "t",
             .queue = "default",
             .demand = Gpus(gpus),
             .submitted = kStart + arrives,
             .time_limit = runtime * 3 / 2 + absl::Hours(1)};
  for (int i = 0; i < gpus; ++i) {
    sim.job.replicas.push_back({absl::StrCat("worker-", i), 1000, ""});
  }
  if (min > 0) {
    sim.job.elastic = {
        .role = "worker", .min = min, .max = gpus, .per_replica = Gpus(1), .gpu_millis = 1000};
  }
  return sim;
}

SimConfig EightGpus() {
  SimConfig config;
  config.capacity = Gpus(8);
  config.queues = {{.name = "default", .nominal = Gpus(8)}};
  config.cycle = absl::Minutes(1);
  config.grace = absl::Seconds(30);
  config.resize_interval = absl::Minutes(1);
  return config;
}

SimResult RunTrace(int elastic_min) {
  std::unique_ptr<SchedulingPolicy> policy = CreateDefaultPolicy();
  return Simulate(*policy, EightGpus(),
                  {Job(1, absl::ZeroDuration(), 4, absl::Hours(2)),
                   Job(2, absl::Minutes(1), 8, absl::Hours(1), elastic_min),
                   Job(3, absl::Minutes(2), 2, absl::Minutes(30))});
}

double Hours(absl::Duration d) { return absl::ToDoubleHours(d); }

TEST(SimElasticGain, ElasticBeatsRigidOnMeanCompletionTime) {
  const SimResult rigid = RunTrace(0);
  const SimResult elastic = RunTrace(2);
  for (const SimResult* r : {&rigid, &elastic}) {
    EXPECT_TRUE(r->violations.empty()) << absl::StrJoin(r->violations, "\n");
    EXPECT_EQ(r->completed, 3);
    EXPECT_EQ(r->timed_out, 0);
    EXPECT_EQ(r->preemptions, 0);
  }
  // Rigid: job 2 starts when job 1 ends, and job 3 backfills at once.
  EXPECT_EQ(rigid.completion.at(1), absl::Hours(2));
  EXPECT_EQ(rigid.completion.at(2), absl::Hours(2) - absl::Minutes(1) + absl::Hours(1));
  EXPECT_EQ(rigid.completion.at(3), absl::Minutes(30));
  // Elastic: job 2 at 4 from its arrival, shrunk for job 3, grown back.
  EXPECT_EQ(elastic.first_wait.at(2), absl::ZeroDuration());
  EXPECT_GE(elastic.shrinks, 1);
  EXPECT_GE(elastic.grows, 1);
  EXPECT_EQ(elastic.completion.at(1), absl::Hours(2));
  EXPECT_LT(elastic.completion.at(2), rigid.completion.at(2) - absl::Minutes(45));
  EXPECT_LE(elastic.completion.at(3), absl::Minutes(32));
  EXPECT_LT(elastic.mean_jct_s, rigid.mean_jct_s * 0.85)
      << "elastic " << elastic.mean_jct_s / 3600 << " h, rigid " << rigid.mean_jct_s / 3600
      << " h; job 2: " << Hours(elastic.completion.at(2)) << " h against "
      << Hours(rigid.completion.at(2)) << " h";
}

}  // namespace
}  // namespace dlp::server
