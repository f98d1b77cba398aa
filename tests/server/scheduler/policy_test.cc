// The default scheduling policy: gang fit, priority, FIFO, never-fit.
#include "server/scheduler/policy.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

ResourceVector Cpus(int64_t n, int gpus = 0) { return {n * 1000, 0, int64_t{gpus} * 1000}; }

// A job of `cpus` CPUs and `gpus` whole GPUs on one replica.
PendingJob Job(int64_t seq, std::string queue, int priority, int64_t cpus, int gpus = 0) {
  PendingJob job{.seq = seq, .tenant = "t", .queue = std::move(queue), .priority = priority,
                 .demand = Cpus(cpus, gpus)};
  if (gpus > 0) job.replicas.push_back({"worker-0", int64_t{gpus} * 1000, ""});
  return job;
}

// A machine of `cpus` CPUs and `gpus` GPUs, `used_cpus` held by a running job.
Snapshot Machine(int64_t cpus, int64_t used_cpus = 0, int gpus = 0) {
  Snapshot s;
  s.capacity = Cpus(cpus, gpus);
  if (used_cpus > 0) s.running.push_back({.seq = 100, .demand = Cpus(used_cpus)});
  return s;
}

Snapshot With(Snapshot s, std::vector<PendingJob> pending) {
  s.pending = std::move(pending);
  return s;
}

std::vector<int64_t> Started(const Decision& d) {
  std::vector<int64_t> out;
  for (const StartDecision& p : d.start) out.push_back(p.seq);
  return out;
}

TEST(SchedulerTest, NeverFitIsRejectedWithTheReason) {
  PriorityFifoPolicy policy;
  absl::Status s = policy.Admit(Job(1, "q", 0, 64), Machine(2));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("needs 64 CPUs, this machine has 2 CPUs"), absl::string_view::npos)
      << s;
  absl::Status gpu = policy.Admit(Job(1, "q", 0, 1, 1), Machine(2));
  EXPECT_NE(gpu.message().find("needs 1 GPU, this machine has 0"), absl::string_view::npos)
      << gpu;
  EXPECT_TRUE(policy.Admit(Job(1, "q", 0, 2), Machine(2)).ok());
  PendingJob mem = Job(1, "q", 0, 1);
  mem.demand.memory_bytes = int64_t{8} << 30;
  Snapshot small = Machine(2);
  small.capacity.memory_bytes = int64_t{4} << 30;
  EXPECT_NE(policy.Admit(mem, small).message().find("8Gi of memory"), absl::string_view::npos);
}

TEST(SchedulerTest, GangStartsAllOrNothingAndSaysWhatIsShort) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule(With(Machine(4, 3), {Job(1, "default", 0, 3)}));
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.waiting[1].reason, "waiting for resources: needs 3 CPUs, 1 CPU free");
  auto fits = policy.Schedule(With(Machine(4, 1), {Job(1, "default", 0, 3)}));
  EXPECT_EQ(Started(fits), (std::vector<int64_t>{1}));
}

TEST(SchedulerTest, FifoWithinAQueueAndTheHeadBlocks) {
  PriorityFifoPolicy policy;
  // 2 then 3 then 1 CPUs on 4: job 1 starts, job 2 does not fit and blocks job 3.
  auto d = policy.Schedule(With(
      Machine(4), {Job(1, "default", 0, 2), Job(2, "default", 0, 3), Job(3, "default", 0, 1)}));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(d.waiting[3].reason, "waiting behind job 2 in queue default");
  EXPECT_EQ(d.waiting[3].position, 2);  // among those still waiting
}

TEST(SchedulerTest, HigherPriorityFirstThenFifo) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule(With(
      Machine(4), {Job(1, "default", 0, 2), Job(2, "default", 5, 2), Job(3, "default", 5, 2)}));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(d.waiting.contains(1));
}

TEST(SchedulerTest, QueuesDoNotBlockEachOther) {
  PriorityFifoPolicy policy;
  auto d = policy.Schedule(With(Machine(4, 2), {Job(1, "big", 0, 8), Job(2, "small", 0, 1)}));
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2}));
}

TEST(SchedulerTest, AssignsDistinctFreeGpus) {
  PriorityFifoPolicy policy;
  Snapshot c = Machine(8, 0, 4);
  c.running.push_back({.seq = 100, .placement = {{"worker-0", {{"0", 1000}}}}});
  c.running.back().demand.gpu_millis = 1000;
  auto d = policy.Schedule(
      With(c, {Job(1, "default", 0, 1, 2), Job(2, "default", 0, 1, 1), Job(3, "default", 0, 1, 1)}));
  ASSERT_EQ(d.start.size(), 2u);
  EXPECT_EQ(d.start[0].placement,
            (std::vector<ReplicaPlacement>{{"worker-0", {{"1", 1000}, {"2", 1000}}}}));
  EXPECT_EQ(d.start[1].placement, (std::vector<ReplicaPlacement>{{"worker-0", {{"3", 1000}}}}));
  EXPECT_EQ(d.waiting[3].reason, "waiting for resources: needs 1 GPU, 0 free");
}

TEST(SchedulerTest, DemandSumsEveryReplica) {
  JobSpec spec;
  ReplicaSpec ps{"ps", 1, {"x"}, {}, {500, 1 << 20, 0}};
  ReplicaSpec worker{"worker", 4, {"x"}, {}, {1000, 0, 1000}};
  spec.replicas = {ps, worker};
  ResourceVector d = DemandOf(spec);
  EXPECT_EQ(d.cpu_millis, 4500);
  EXPECT_EQ(d.memory_bytes, 1 << 20);
  EXPECT_EQ(d.gpu_millis, 4000);
  EXPECT_EQ(DescribeCpus(4500), "4.5 CPUs");
  EXPECT_EQ(DescribeCpus(1000), "1 CPU");
}

}  // namespace
}  // namespace dlp::server
