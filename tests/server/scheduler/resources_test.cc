// What a job needs, summed without overflow: a spec that would wrap around
// int64 (admitted on a 1-CPU dlpd before) never fits.
#include "server/scheduler/resources.h"

#include <gtest/gtest.h>

#include <limits>

#include "server/scheduler/policy.h"

namespace dlp::server {
namespace {

JobSpec Replicas(int count, int64_t cpu_millis, int64_t memory_bytes) {
  JobSpec spec;
  ReplicaSpec r;
  r.role = "worker";
  r.count = count;
  r.resources.cpu_millis = cpu_millis;
  r.resources.memory_bytes = memory_bytes;
  spec.replicas.push_back(r);
  return spec;
}

TEST(ResourcesTest, DemandSaturatesInsteadOfWrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // 2^62 millicores x 3 would wrap to a negative (or small) total.
  ResourceVector cpu = DemandOf(Replicas(3, int64_t{4611686018427387904}, 0));
  EXPECT_EQ(cpu.cpu_millis, kMax);
  ResourceVector memory = DemandOf(Replicas(2, 1000, int64_t{4611686018427387905}));
  EXPECT_EQ(memory.memory_bytes, kMax);
  EXPECT_EQ(DemandOf(Replicas(4, 500, 1 << 20)).cpu_millis, 2000);

  PriorityFifoPolicy policy;
  Snapshot machine;
  machine.capacity = {1000, int64_t{8} << 30, 0};
  EXPECT_FALSE(policy.Admit({.seq = 1, .demand = cpu}, machine).ok());
  EXPECT_FALSE(policy.Admit({.seq = 2, .demand = memory}, machine).ok());

  // Next to running jobs, whatever they hold, it still waits.
  Snapshot cluster = machine;
  cluster.running.push_back({.seq = 3, .demand = {900, 0, 0}});
  cluster.running.push_back({.seq = 4, .demand = cpu});  // saturates, never wraps to "free"
  cluster.pending.push_back({.seq = 7, .queue = "default", .demand = {100, 0, 0}});
  Decision d = policy.Schedule(cluster);
  EXPECT_TRUE(d.start.empty());
  Snapshot alone = machine;
  alone.pending.push_back({.seq = 8, .queue = "default", .demand = cpu});
  Decision huge = policy.Schedule(alone);
  EXPECT_TRUE(huge.start.empty());
  EXPECT_EQ(huge.waiting.count(8), 1u);
}

TEST(ResourcesTest, FractionalGpusAndTheirFlavourAreCounted) {
  JobSpec spec = Replicas(3, 1000, 0);
  spec.replicas[0].resources.gpu_millis = 500;
  spec.replicas[0].resources.gpu_type = "NVIDIA H200";
  ReplicaSpec any = spec.replicas[0];
  any.role = "chief";
  any.count = 1;
  any.resources.gpu_millis = 250;
  any.resources.gpu_type = "";
  spec.replicas.push_back(any);
  const ResourceVector d = DemandOf(spec);
  EXPECT_EQ(d.gpu_millis, 1750);
  EXPECT_EQ(d.gpu_flavours, (std::map<std::string, int64_t>{{"h200", 1500}}));
  EXPECT_EQ(DescribeGpus(500), "0.5 GPU");
  EXPECT_EQ(DescribeGpus(1750), "1.75 GPUs");
}

}  // namespace
}  // namespace dlp::server
