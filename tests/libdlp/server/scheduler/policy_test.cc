// The default scheduling policy: gang fit, priority, FIFO, never-fit.
#include "server/scheduler/policy.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

ResourceVector Cpus(int64_t n, int gpus = 0) { return {n * 1000, 0, gpus}; }

ClusterState Machine(int64_t cpus, int64_t used_cpus = 0, int gpus = 0) {
  ClusterState c;
  c.capacity = Cpus(cpus, gpus);
  c.used = Cpus(used_cpus);
  for (int g = 0; g < gpus; ++g) c.free_gpus.push_back(g);
  return c;
}

std::vector<int64_t> Started(const ScheduleDecision& d) {
  std::vector<int64_t> out;
  for (const GpuAssignment& p : d.start) out.push_back(p.seq);
  return out;
}

TEST(SchedulerTest, NeverFitIsRejectedWithTheReason) {
  PriorityFifoPolicy policy;
  absl::Status s = policy.Admit(Cpus(64), Cpus(2));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("needs 64 CPUs, this machine has 2 CPUs"), absl::string_view::npos)
      << s;
  absl::Status gpu = policy.Admit(Cpus(1, 1), Cpus(2));
  EXPECT_NE(gpu.message().find("needs 1 GPU, this machine has 0"), absl::string_view::npos)
      << gpu;
  EXPECT_TRUE(policy.Admit(Cpus(2), Cpus(2)).ok());
  ResourceVector mem{1000, int64_t{8} << 30, 0};
  EXPECT_NE(policy.Admit(mem, {2000, int64_t{4} << 30, 0}).message().find("8Gi of memory"),
            absl::string_view::npos);
}

TEST(SchedulerTest, GangStartsAllOrNothingAndSaysWhatIsShort) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule({{1, "default", "default", 0, Cpus(3)}}, Machine(4, 3));
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.waiting[1], "waiting for resources: needs 3 CPUs, 1 CPU free");
  auto fits = policy.Schedule({{1, "default", "default", 0, Cpus(3)}}, Machine(4, 1));
  EXPECT_EQ(Started(fits), (std::vector<int64_t>{1}));
}

TEST(SchedulerTest, FifoWithinAQueueAndTheHeadBlocks) {
  PriorityFifoPolicy policy;
  // 2 then 3 then 1 CPUs on 4: job 1 starts, job 2 does not fit and blocks job 3.
  auto d = policy.Schedule({{1, "t", "default", 0, Cpus(2)},
                            {2, "t", "default", 0, Cpus(3)},
                            {3, "t", "default", 0, Cpus(1)}},
                           Machine(4));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(d.waiting[3], "waiting behind job 2 in queue default");
}

TEST(SchedulerTest, HigherPriorityFirstThenFifo) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule({{1, "t", "default", 0, Cpus(2)},
                            {2, "t", "default", 5, Cpus(2)},
                            {3, "t", "default", 5, Cpus(2)}},
                           Machine(4));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(d.waiting.contains(1));
}

TEST(SchedulerTest, QueuesDoNotBlockEachOther) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule({{1, "t", "big", 0, Cpus(8)}, {2, "t", "small", 0, Cpus(1)}},
                           Machine(4, 2));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2}));
}

TEST(SchedulerTest, AssignsDistinctFreeGpus) {
  PriorityFifoPolicy policy;
  ClusterState c = Machine(8, 0, 4);
  c.free_gpus = {1, 3, 2};
  auto d = policy.Schedule({{1, "t", "default", 0, Cpus(1, 2)}, {2, "t", "default", 0, Cpus(1, 1)},
                            {3, "t", "default", 0, Cpus(1, 1)}},
                           c);
  ASSERT_EQ(d.start.size(), 2u);
  EXPECT_EQ(d.start[0].gpus, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.start[1].gpus, (std::vector<int>{3}));
  EXPECT_EQ(d.waiting[3], "waiting for resources: needs 1 GPU, 0 free");
}

TEST(SchedulerTest, DemandSumsEveryReplica) {
  JobSpec spec;
  ReplicaSpec ps{"ps", 1, {"x"}, {}, {500, 1 << 20, 0}};
  ReplicaSpec worker{"worker", 4, {"x"}, {}, {1000, 0, 1}};
  spec.replicas = {ps, worker};
  ResourceVector d = DemandOf(spec);
  EXPECT_EQ(d.cpu_millis, 4500);
  EXPECT_EQ(d.memory_bytes, 1 << 20);
  EXPECT_EQ(d.gpus, 4);
  EXPECT_EQ(DescribeCpus(4500), "4.5 CPUs");
  EXPECT_EQ(DescribeCpus(1000), "1 CPU");
}

}  // namespace
}  // namespace dlp::server
