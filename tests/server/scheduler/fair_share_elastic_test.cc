// Elastic jobs under the default policy: start with what fits, grow into
// free capacity at most once per interval, give lent workers back to a head
// that waits for room, shrink before anyone is preempted, and never below
// the minimum.
#include <gtest/gtest.h>

#include "policy_test_util.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/fair_share_policy.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

ElasticRole Workers(int min, int max, int64_t cpus_each, int64_t gpus_each = 0) {
  ElasticRole e;
  e.role = "worker";
  e.min = min;
  e.max = max;
  e.per_replica = Res(cpus_each, gpus_each);
  e.gpu_millis = gpus_each * 1000;
  return e;
}

// `max` workers of `cpus_each` CPUs (and GPUs), at least `min` of them.
PendingJob Elastic(int64_t seq, int min, int max, int64_t cpus_each, int priority = 0,
                   int64_t gpus_each = 0) {
  PendingJob job = Job(seq, "default", cpus_each * max, gpus_each * max, priority);
  job.elastic = Workers(min, max, cpus_each, gpus_each);
  return job;
}

// Running at `size` of [min, max], last resized `ago`.
RunningJob RunningElastic(int64_t seq, int size, int min, int max, int priority = 0,
                          absl::Duration ago = absl::Minutes(5), std::string queue = "default") {
  RunningJob job = Running(seq, std::move(queue), size, {}, priority, ago);
  job.elastic = Workers(min, max, 1);
  job.size = size;
  job.resized = kNow - ago;
  return job;
}

Snapshot Queues(int64_t cpus) {
  Snapshot s = Machine(cpus);
  s.queues = {Queue("default", "", Res(cpus))};
  return s;
}

TEST(FairShareElasticTest, StartsAtTheLargestSizeThatFits) {
  Snapshot s = Machine(4);
  s.running = {Running(101, "default", 2)};
  s.pending = {Elastic(1, 2, 4, 1)};
  Decision d = Decide(s);
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].size, 2);
  s.running.clear();
  d = Decide(s);
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].size, 4);
}

TEST(FairShareElasticTest, WaitsForItsMinimumAsAWholeGang) {
  Snapshot s = Machine(4, 4);
  s.running = {Running(101, "default", 3, {"0", "1", "2"})};
  s.pending = {Elastic(1, 2, 4, 1, 0, 1)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  // It waits for its minimum of two, not for all four.
  EXPECT_EQ(d.waiting[1].reason,
            "waiting for resources: needs 2 CPUs, 1 CPU free; needs 2 GPUs, 1 free");
  // With room for two: exactly two GPU replicas placed, on free devices.
  s.running = {Running(101, "default", 2, {"0", "1"})};
  d = Decide(s);
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].size, 2);
  ASSERT_EQ(d.start[0].placement.size(), 2u);
  EXPECT_EQ(d.start[0].placement[0].replica, "worker-0");
  EXPECT_EQ(d.start[0].placement[1].replica, "worker-1");
}

TEST(FairShareElasticTest, DoesNotDelayTheReservedHead) {
  // Job 101 ends in 10 minutes; head 1 needs 3 of the 4 CPUs then. Elastic
  // job 2 (no time limit) may take only the one CPU the head leaves.
  Snapshot s = Machine(4);
  s.running = {Running(101, "default", 4, {}, 0, absl::Minutes(50), absl::Hours(1))};
  s.pending = {Job(1, "default", 3), Elastic(2, 1, 3, 1)};
  s.running[0].demand = Res(2);
  Decision d = Decide(s);
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].seq, 2);
  EXPECT_EQ(d.start[0].size, 1);
  // Needing all 4, the head leaves nothing: the elastic job waits.
  s.pending[0] = Job(1, "default", 4);
  EXPECT_TRUE(Decide(s).start.empty());
}

TEST(FairShareElasticTest, GrowsIntoFreeCapacityOncePerInterval) {
  Snapshot s = Machine(4);
  s.running = {RunningElastic(101, 2, 2, 4)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 101);
  EXPECT_EQ(d.resize[0].from, 2);
  EXPECT_EQ(d.resize[0].to, 4);
  EXPECT_EQ(d.resize[0].for_job, 0);
  EXPECT_EQ(d.resize[0].reason, "Resized 2\u21924 (capacity free)");
  // Resized 30 s ago: not before the interval has passed.
  s.running[0].resized = kNow - absl::Seconds(30);
  EXPECT_TRUE(Decide(s).resize.empty());
  s.resize_interval = absl::Seconds(20);
  EXPECT_EQ(Decide(s).resize.size(), 1u);
  // Re-forming already: left alone.
  s.running[0].resizing_to = 2;
  EXPECT_TRUE(Decide(s).resize.empty());
}

TEST(FairShareElasticTest, GrowsOnlyAsFarAsFreeAndIntoAReservationAnIntervalAhead) {
  Snapshot s = Machine(4);
  s.running = {RunningElastic(101, 2, 2, 4, 0, absl::Minutes(20)), Running(102, "default", 1)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 3);
  // A head (2 CPUs, when 102 ends in 5 minutes) claims what is free then.
  // Five minutes is more than an interval: the job may grow into the claim,
  // and gives it back by then (GivesLentWorkersBackToAHeadThatWaitsForRoom).
  s.running[1] = Running(102, "default", 1, {}, 0, absl::Minutes(55), absl::Hours(1));
  s.pending = {Job(1, "default", 2)};
  d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 3);
  EXPECT_TRUE(d.start.empty());
  // Within an interval of the head's start it may not.
  s.resize_interval = absl::Minutes(10);
  d = Decide(s);
  EXPECT_TRUE(d.resize.empty() && d.start.empty()) << d.resize.size() << " " << d.start.size();
}

// Every waiting job, in any queue, has had its turn when elastic jobs grow:
// what is left free, none of them can use now.
TEST(FairShareElasticTest, GrowsIntoRoomNoWaitingJobCanUseNow) {
  Snapshot s = Machine(8);
  s.queues = {Queue("default", "", Res(8)), Queue("small", "", Res(1))};
  s.running = {RunningElastic(101, 2, 2, 6)};
  s.pending = {Job(1, "small", 2)};  // beyond its queue's quota: never runs here
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 6);
  s.queues[1].nominal = Res(8);
  s.pending = {Job(1, "small", 7)};  // fits its quota, never the machine beside 101's minimum
  d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 6);
  s.pending = {Job(1, "small", 5)};  // fits what is free: it starts, and 101 grows by one
  d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 3);
}

// The workers above the minimum are lent: a head of any priority that waits
// for room takes them back, past the interval, before it reserves.
TEST(FairShareElasticTest, GivesLentWorkersBackToAHeadThatWaitsForRoom) {
  Snapshot s = Machine(4);
  s.running = {RunningElastic(101, 4, 2, 4)};
  s.pending = {Job(1, "default", 2)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  EXPECT_TRUE(d.preempt.empty());
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 2);
  EXPECT_EQ(d.resize[0].for_job, 1);
  EXPECT_EQ(d.resize[0].reason, "Resized 4\u21922 (for job 1, priority 0)");
  EXPECT_EQ(d.waiting[1].reason,
            "waiting for resources: needs 2 CPUs, 0 CPUs free; shrinking job 101");
  // While it re-forms, what it frees is the head's: nothing more happens.
  s.running[0].resizing_to = 2;
  d = Decide(s);
  EXPECT_TRUE(d.resize.empty() && d.start.empty());
  // Resized within the interval: it keeps its workers, the head waits.
  s.running[0].resizing_to = 0;
  s.running[0].resized = kNow - absl::Seconds(30);
  d = Decide(s);
  EXPECT_TRUE(d.resize.empty() && d.start.empty());
  // Shrinking that cannot make room frees nothing.
  s.running[0].resized = kNow - absl::Minutes(5);
  s.pending = {Job(1, "default", 3)};
  EXPECT_TRUE(Decide(s).resize.empty());
}

TEST(FairShareElasticTest, ShrinksInsteadOfPreempting) {
  Snapshot s = Queues(4);
  s.running = {RunningElastic(101, 4, 2, 4)};
  s.pending = {Job(1, "default", 2, 0, 100)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_TRUE(d.start.empty());
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 2);
  EXPECT_EQ(d.resize[0].for_job, 1);
  EXPECT_EQ(d.resize[0].reason, "Resized 4\u21922 (for job 1, priority 100)");
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue default; needs 2 cpu; queue default uses 4/4 cpu (nominal 4, no cohort "
            "to borrow from); shrinking job 101");
  // While it re-forms, what it frees is the preemptor's: nothing more happens.
  s.running[0].resizing_to = 2;
  d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_TRUE(d.resize.empty());
}

TEST(FairShareElasticTest, ShrinksOnlyAsFarAsNeededAndForAnEqualOnlyPastTheInterval) {
  Snapshot s = Queues(4);
  s.running = {RunningElastic(101, 4, 1, 4, 0, absl::Seconds(30))};
  s.pending = {Job(1, "default", 1, 0, 100)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 3);
  // An equal could not preempt it: within the interval it keeps its workers.
  s.pending = {Job(1, "default", 1, 0, 0)};
  EXPECT_TRUE(Decide(s).resize.empty());
  s.running[0].resized = kNow - absl::Minutes(5);
  d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 3);
}

// With a time limit, a job slowed down might not finish within it: those
// with none shrink first, and those nearest their limit grow first.
TEST(FairShareElasticTest, ShrinksJobsWithNoTimeLimitFirstAndGrowsTheNearestItsLimitFirst) {
  Snapshot s = Queues(8);
  s.running = {RunningElastic(101, 4, 2, 4, 0, absl::Minutes(10)),
               RunningElastic(102, 4, 2, 4, 0, absl::Minutes(20))};
  s.running[0].time_limit = absl::Hours(2);
  s.pending = {Job(1, "default", 2, 0, 100)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 102);  // though 101 grew more recently
  s.pending.clear();
  s.running[0].size = s.running[1].size = 2;
  s.running[0].demand = s.running[1].demand = Res(2);
  s.capacity = Res(5);
  d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 101);  // ends within 2 hours; 102 may run for ever
}

TEST(FairShareElasticTest, PreemptsWholeOnlyWhatShrinkingCannotFree) {
  Snapshot s = Queues(6);
  s.running = {RunningElastic(101, 4, 2, 4), Running(102, "default", 2, {}, 0)};
  s.pending = {Job(1, "default", 4, 0, 100)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 101);
  EXPECT_EQ(d.resize[0].to, 2);  // never below its minimum
  EXPECT_EQ(Victims(d), (std::vector<int64_t>{102}));
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue default; needs 4 cpu; queue default uses 6/6 cpu (nominal 6, no cohort "
            "to borrow from); shrinking and preempting job 102");
}

TEST(FairShareElasticTest, ShrinksTheLowestPriorityThenTheMostRecentlyGrownFirst) {
  Snapshot s = Queues(8);
  s.running = {RunningElastic(101, 4, 2, 4, 5, absl::Minutes(1)),
               RunningElastic(102, 4, 2, 4, 0, absl::Minutes(10))};
  s.pending = {Job(1, "default", 2, 0, 100)};
  Decision d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 102);  // priority 0 before 5, however old
  s.running[0].priority = 0;
  d = Decide(s);
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].seq, 101);  // grown a minute ago
}

TEST(FairShareElasticTest, AdmitsByTheMinimumAndRefusesAMinimumOverTheQuota) {
  Snapshot s = Machine(16);
  s.queues = {Queue("default", "lab", Res(4), Res(2)), Queue("other", "lab", Res(12))};
  // 8 CPUs whole, but a minimum of 4 fits the quota of 4 plus 2 borrowed.
  EXPECT_TRUE(FairSharePolicy().Admit(Elastic(1, 4, 8, 1), s).ok());
  absl::Status status = FairSharePolicy().Admit(Elastic(1, 7, 8, 1), s);
  ASSERT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_EQ(status.message(),
            "the job can never fit even at its minimum (worker minCount 7): needs 7 CPUs; queue "
            "default may use at most 6 (nominal 4, may borrow 2)");
  status = FairSharePolicy().Admit(Elastic(1, 20, 24, 1), s);
  EXPECT_EQ(status.message(),
            "the job can never fit even at its minimum (worker minCount 20): needs 20 CPUs, this "
            "machine has 16 CPUs");
}

TEST(FairShareElasticTest, AReclaimingQueueShrinksABorrowerFirst) {
  Snapshot s = Machine(8);
  s.queues = {Queue("a", "lab", Res(4)), Queue("b", "lab", Res(4))};
  s.running = {RunningElastic(101, 8, 2, 8, 0, absl::Minutes(5), "b")};
  PendingJob job = Job(1, "a", 3);
  s.pending = {job};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  ASSERT_EQ(d.resize.size(), 1u);
  EXPECT_EQ(d.resize[0].to, 5);
}

}  // namespace
}  // namespace dlp::server
