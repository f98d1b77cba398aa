// The default policy: today's behaviour without queues, quotas, borrowing and
// lending in a cohort, weighted DRF between borrowers, gangs, reservations
// and backfill.
#include "server/scheduler/fair_share_policy.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

TEST(FairSharePolicyTest, IsTheDefault) {
  EXPECT_NE(dynamic_cast<FairSharePolicy*>(CreateDefaultPolicy().get()), nullptr);
}

TEST(FairSharePolicyTest, WithoutQueuesTheReasonsStayAsBefore) {
  Snapshot s = Machine(4);
  s.running = {Running(100, "default", 3)};
  s.pending = {Job(1, "default", 3)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.waiting[1].reason, "waiting for resources: needs 3 CPUs, 1 CPU free");
  EXPECT_EQ(d.waiting[1].position, 1);
  EXPECT_FALSE(d.waiting[1].estimated_start.has_value());  // job 100 has no time limit

  // 2, 3, 2 CPUs on 4: job 1 starts; job 2 is the head; job 3 (no time limit)
  // would leave job 2 only 2 CPUs when job 1 ends, so it may not backfill.
  s = Machine(4);
  s.pending = {Job(1, "default", 2), Job(2, "default", 3), Job(3, "default", 2)};
  d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(d.waiting[2].reason, "waiting for resources: needs 3 CPUs, 2 CPUs free");
  EXPECT_EQ(d.waiting[3].reason, "waiting behind job 2 in queue default");
  EXPECT_EQ(d.waiting[3].position, 2);
}

TEST(FairSharePolicyTest, WithoutQueuesPriorityThenFifoAndQueuesShareTheMachine) {
  Snapshot s = Machine(4);
  s.pending = {Job(1, "default", 2), Job(2, "default", 2, 0, 5), Job(3, "default", 2, 0, 5)};
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{2, 3}));
  s.pending = {Job(1, "big", 8), Job(2, "small", 1)};  // 8 never fits: no reservation
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{2}));
}

TEST(FairSharePolicyTest, AgeingLiftsALongWaitingJobAboveNewerHigherOnes) {
  Snapshot s = Machine(2);
  PendingJob old = Job(1, "default", 2, 0, 0);
  old.submitted = kNow - absl::Minutes(35);  // +3 levels (one per 10 min)
  PendingJob newer = Job(2, "default", 2, 0, 2);
  s.pending = {newer, old};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(d.waiting[2].reason, "waiting for resources: needs 2 CPUs, 0 CPUs free");
}

TEST(FairSharePolicyTest, AQueueWithoutCohortGetsItsNominalQuotaOnly) {
  Snapshot s = Machine(16);
  s.queues = {Queue("a", "", Res(4)), Queue("idle", "", Res(8))};
  s.pending = {Job(1, "a", 3), Job(2, "a", 3)};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_EQ(d.waiting[2].reason,
            "1st in queue a; needs 3 cpu; queue a uses 3/4 cpu (nominal 4, no cohort to borrow "
            "from); waiting for job 1 (no time limit, start unknown)");
}

// vision and nlp lend each other their unused nominal quota; vision may borrow 2 GPUs.
Snapshot Lab(int64_t gpus = 8) {
  Snapshot s = Machine(64, gpus);
  s.queues = {Queue("vision", "lab", Res(16, 4), Res(0, 2)), Queue("nlp", "lab", Res(16, 4))};
  return s;
}

TEST(FairSharePolicyTest, BorrowsUpToTheBorrowingLimit) {
  Snapshot s = Lab();
  s.pending = {Job(1, "vision", 1, 2), Job(2, "vision", 1, 2), Job(3, "vision", 1, 2),
               Job(4, "vision", 1, 2)};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(d.waiting[4].reason,
            "1st in queue vision; needs 1 cpu, 2 gpu; queue vision uses 6/4 gpu (nominal 4, may "
            "borrow 2, cohort has 2 free); waiting for job 1 (no time limit, start unknown)");
}

TEST(FairSharePolicyTest, LendsNoMoreThanTheLendingLimit) {
  Snapshot s = Lab();
  s.queues[1].lending_limit = Res(16, 1);
  for (int i = 1; i <= 6; ++i) s.pending.push_back(Job(i, "vision", 1, 1));
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_NE(d.waiting[6].reason.find("queue vision uses 5/4 gpu (nominal 4, may borrow 2, "
                                     "cohort has 0 free)"),
            std::string::npos)
      << d.waiting[6].reason;
  // nlp still gets its own nominal quota: 3 guaranteed plus 1 lent but unused;
  // it stays within nominal, so it goes before vision's borrowing job 5.
  s.pending.push_back(Job(7, "nlp", 1, 3));
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{1, 2, 3, 4, 7, 5}));
}

TEST(FairSharePolicyTest, TheLowestWeightedBorrowedShareGoesFirst) {
  // Pool: 2 + 2 + 4 = 8 GPUs; a borrows 2 already, b nothing; 2 left in the cohort.
  Snapshot s = Machine(64, 8);
  s.queues = {Queue("a", "lab", Res(16, 2)), Queue("b", "lab", Res(16, 2)),
              Queue("lender", "lab", Res(16, 4))};
  s.running = {Running(100, "a", 1, {"0", "1", "2", "3"}), Running(101, "b", 1, {"4", "5"})};
  s.pending = {Job(1, "a", 1, 2), Job(2, "b", 1, 2)};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2}));  // b's share 0 < a's 2/8
  // With weight 4, a's share is 2/8/4 = 0.0625; b, borrowing 1, has 1/8 = 0.125.
  s.queues[0].weight = 4;
  s.running = {Running(100, "a", 1, {"0", "1", "2", "3"}), Running(101, "b", 1, {"4", "5", "6"})};
  s.pending = {Job(1, "a", 1, 1), Job(2, "b", 1, 1)};
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{1}));
}

TEST(FairSharePolicyTest, AGangStartsWhole) {
  Snapshot s = Machine(16, 4);
  s.running = {Running(100, "default", 1, {"2"})};
  s.pending = {Job(1, "default", 1, 4), Job(2, "default", 1, 1)};
  Decision d = Decide(s);
  // Job 1 cannot have 4 of the 3 free GPUs; job 2 (no time limit) would keep
  // one of the 4 job 1 needs once job 100 ends, so it waits too.
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.waiting[1].reason, "waiting for resources: needs 4 GPUs, 3 free");
  // Half GPUs pack onto one device.
  s.running.clear();
  PendingJob half = Job(3, "default", 1);
  half.demand.gpu_millis = 500;
  half.replicas = {{"worker-0", 500, ""}};
  PendingJob other = half;
  other.seq = 4;
  s.pending = {half, other};
  d = Decide(s);
  ASSERT_EQ(d.start.size(), 2u);
  EXPECT_EQ(d.start[0].placement, (std::vector<ReplicaPlacement>{{"worker-0", {{"0", 500}}}}));
  EXPECT_EQ(d.start[1].placement, (std::vector<ReplicaPlacement>{{"worker-0", {{"0", 500}}}}));
}

TEST(FairSharePolicyTest, AFlavourQuotaLimitsThatFlavourOnly) {
  Snapshot s = Machine(16, 4);
  s.devices = {{"0", "GPU-0", "NVIDIA H100", "h100"}, {"1", "GPU-1", "NVIDIA H100", "h100"},
               {"2", "GPU-2", "NVIDIA A100", "a100"}, {"3", "GPU-3", "NVIDIA A100", "a100"}};
  ResourceVector nominal = Res(16, 4);
  nominal.gpu_flavours = {{"h100", 1000}};
  s.queues = {Queue("v", "", nominal)};
  auto typed = [](int64_t seq, std::string flavour) {
    PendingJob job = Job(seq, "v", 1, 1);
    job.demand.gpu_flavours = {{flavour, 1000}};
    job.replicas[0].gpu_type = flavour;
    return job;
  };
  s.pending = {typed(1, "h100"), typed(2, "h100"), typed(3, "a100")};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(d.start[1].placement, (std::vector<ReplicaPlacement>{{"worker-0", {{"2", 1000}}}}));
  EXPECT_EQ(d.waiting[2].reason,
            "1st in queue v; needs 1 cpu, 1 gpu, 1 gpu.h100; queue v uses 1/1 gpu.h100 (nominal "
            "1, no cohort to borrow from); waiting for job 1 (no time limit, start unknown)");
}

// Queue a's head needs all 8 GPUs; job 100 holds 4 of them for 10 more minutes.
Snapshot Reserved() {
  Snapshot s = Machine(16, 8);
  s.running = {Running(100, "a", 1, {"0", "1", "2", "3"}, 0, absl::Minutes(20), absl::Minutes(30))};
  s.pending = {Job(1, "a", 4, 8)};
  return s;
}

TEST(FairSharePolicyTest, TheHeadReservesSoTwoGangsNeverEachHoldHalf) {
  Snapshot s = Reserved();
  s.pending.push_back(Job(2, "b", 1, 4));  // no time limit: could hold 4 GPUs forever
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.waiting[1].reason,
            "waiting for resources: needs 8 GPUs, 4 free; waiting for job 100 (est. start in 10 "
            "min)");
  EXPECT_EQ(d.waiting[1].estimated_start, kNow + absl::Minutes(10));
  EXPECT_EQ(d.waiting[2].reason, "waiting for resources reserved for job 1 (est. start in 10 min)");
}

TEST(FairSharePolicyTest, BackfillOnlyWhatCannotDelayTheReservation) {
  Snapshot s = Reserved();
  s.pending.push_back(Job(2, "b", 1, 4, 0, absl::Minutes(5)));   // ends before: starts
  s.pending.push_back(Job(3, "c", 1, 2, 0, absl::Minutes(15)));  // ends after: waits
  s.pending.push_back(Job(4, "d", 8));  // no limit, but only CPUs job 1 leaves free
  s.pending.push_back(Job(5, "e", 5));  // 4 + 8 + 5 > 16 CPUs: would delay job 1
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(d.waiting[3].reason,
            "waiting for resources: needs 2 GPUs, 0 free");  // job 2 took the free ones
  EXPECT_EQ(d.waiting[5].reason, "waiting for resources reserved for job 1 (est. start in 10 min)");
}

TEST(FairSharePolicyTest, BackfillBehindTheHeadOfTheSameQueue) {
  Snapshot s = Reserved();
  s.pending.push_back(Job(2, "a", 1, 2, 0, absl::Minutes(10)));  // ends in time
  s.pending.push_back(Job(3, "a", 1, 2));                        // no time limit
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2}));
  EXPECT_EQ(d.waiting[3].reason, "waiting behind job 1 in queue a");
  EXPECT_EQ(d.waiting[3].trace.lines().back(),
            "cannot backfill: waiting for resources reserved for job 1 (est. start in 10 min)");
}

TEST(FairSharePolicyTest, OnlyTheFirstHeadInTurnOrderReserves) {
  Snapshot s = Reserved();
  s.pending.push_back(Job(2, "b", 1, 8));  // another queue's head
  s.pending.push_back(Job(3, "b", 1, 2, 0, absl::Minutes(5)));
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{3}));
  EXPECT_EQ(d.waiting[1].estimated_start, kNow + absl::Minutes(10));
  EXPECT_FALSE(d.waiting[2].estimated_start.has_value());
  EXPECT_EQ(d.waiting[2].trace.lines().back(),
            "reservation: not reserved yet: job 1 ahead of it reserves");
}

TEST(FairSharePolicyTest, BackfillLooksFarBehindTheHead) {
  Snapshot s = Reserved();
  // 200 jobs without a time limit could delay job 1; the one behind them
  // ends before job 1's reserved start, and the GPUs are idle till then.
  for (int64_t seq = 2; seq <= 201; ++seq) s.pending.push_back(Job(seq, "a", 1, 2));
  s.pending.push_back(Job(202, "a", 1, 2, 0, absl::Minutes(5)));
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{202}));
}

TEST(FairSharePolicyTest, AJobBehindAHeadIsExplainedWithTheUseAfterBackfill) {
  Snapshot s = Machine(8);
  s.queues = {Queue("q", "", Res(4))};
  s.running = {Running(101, "q", 2, {}, 0, absl::Minutes(10), absl::Minutes(70))};
  // Job 1 reserves for when job 101 ends; job 3 ends before that and
  // backfills; jobs 2 and 4 ask alike, but job 4 is tried after job 3 started.
  s.pending = {Job(1, "q", 4), Job(2, "q", 3), Job(3, "q", 1, 0, 0, absl::Minutes(10)),
               Job(4, "q", 3)};
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{3}));
  const std::string tail =
      " cpu (nominal 4, no cohort to borrow from); waiting behind job 1 in queue q";
  EXPECT_EQ(d.waiting[2].reason, "2nd in queue q; needs 3 cpu; queue q uses 2/4" + tail);
  EXPECT_EQ(d.waiting[4].reason, "3rd in queue q; needs 3 cpu; queue q uses 3/4" + tail);
  EXPECT_EQ(d.waiting[4].trace.lines(),
            (std::vector<std::string>{
                "waiting behind job 1 in queue q; tried for backfill",
                "cannot backfill: queue q uses 3/4 cpu (nominal 4, no cohort to borrow from)"}));
}

TEST(FairSharePolicyTest, ASnapshotInAnyOrderIsExplainedByQueueOrder) {
  Snapshot s = Machine(4);
  s.queues = {Queue("q", "", Res(4))};
  s.running = {Running(101, "q", 4)};
  s.pending = {Job(3, "q", 1), Job(1, "q", 2), Job(2, "q", 1, 0, 5)};
  Decision d = Decide(s);
  ASSERT_EQ(d.waiting.size(), 3u);
  EXPECT_EQ(d.waiting[2].position, 1);  // the highest priority first
  EXPECT_EQ(d.waiting[1].position, 2);
  EXPECT_EQ(d.waiting[3].position, 3);
  EXPECT_EQ(d.waiting[3].reason.substr(0, 33), "3rd in queue q; needs 1 cpu; queu");
}

}  // namespace
}  // namespace dlp::server
