// The default policy's preemption: by priority within a queue, reclaiming
// borrowed quota, and the choice of victims.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy_test_util.h"
#include "server/scheduler/fair_share_policy.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

// A machine of `cpus` CPUs whose queues are configured, each with the whole
// machine as its quota (without configured queues nothing is preempted).
Snapshot Queues(int64_t cpus, std::vector<std::string> names = {"default"}) {
  Snapshot s = Machine(cpus);
  for (const std::string& name : names) s.queues.push_back(Queue(name, "", Res(cpus)));
  return s;
}

RunningJob Cpus(int64_t seq, int64_t cpus, int priority, int minutes_ago) {
  return Running(seq, "default", cpus, {}, priority, absl::Minutes(minutes_ago));
}

TEST(FairSharePreemptionTest, AHigherPriorityJobPreemptsTheMostRecentLowerOne) {
  Snapshot s = Queues(4);
  s.running = {Cpus(101, 2, 0, 10), Cpus(102, 2, 0, 5)};
  s.pending = {Job(1, "default", 2, 0, 5)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  ASSERT_EQ(d.preempt.size(), 1u);
  EXPECT_EQ(d.preempt[0].victim, 102);
  EXPECT_EQ(d.preempt[0].preemptor, 1);
  EXPECT_EQ(d.preempt[0].reason, "Preempted by job 1 (priority 5 in queue default)");
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue default; needs 2 cpu; queue default uses 4/4 cpu (nominal 4, no cohort "
            "to borrow from); preempting job 102");
}

TEST(FairSharePreemptionTest, NothingIsPreemptedWithoutConfiguredQueues) {
  Snapshot s = Machine(4);
  s.running = {Cpus(101, 2, 0, 10), Cpus(102, 2, 0, 5)};
  s.pending = {Job(1, "default", 2, 0, 5)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_EQ(d.waiting[1].reason, "waiting for resources: needs 2 CPUs, 0 CPUs free");
}

TEST(FairSharePreemptionTest, AJobPreemptedThreeTimesRunsToItsEnd) {
  Snapshot s = Queues(4);
  s.running = {Cpus(101, 4, 0, 10)};
  s.running[0].preemptions = 3;
  s.pending = {Job(1, "default", 2, 0, 5)};
  EXPECT_TRUE(Decide(s).preempt.empty());
  s.running[0].preemptions = 2;
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{101}));
}

TEST(FairSharePreemptionTest, AJobYoungerThanTheExemptTimeIsNotPreempted) {
  Snapshot s = Queues(4);
  s.preempt_exempt_time = absl::Minutes(5);
  // The most recent lower job would go; exempt, the older one goes instead.
  s.running = {Cpus(101, 2, 0, 10), Cpus(102, 2, 0, 1)};
  s.pending = {Job(1, "default", 2, 0, 5)};
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{101}));
  // Only young ones: it waits, and its trace says why.
  s.running = {Cpus(102, 4, 0, 1)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_TRUE(d.start.empty());
  EXPECT_THAT(d.waiting[1].trace.lines(),
              ::testing::Contains(::testing::HasSubstr(
                  "0 candidates (lower priority in its queue), not enough to fit; 1 more started "
                  "less than 5m ago (--preempt-exempt-time)")));
  // Of age, it is preempted.
  s.now += absl::Minutes(4);
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{102}));
}

TEST(FairSharePreemptionTest, EqualOrLowerPriorityNeverPreempts) {
  Snapshot s = Queues(4);
  s.running = {Cpus(101, 4, 5, 10)};
  s.pending = {Job(1, "default", 2, 0, 5), Job(2, "default", 2, 0, 0)};
  EXPECT_TRUE(Decide(s).preempt.empty());
}

TEST(FairSharePreemptionTest, TheFewestVictimsThenTheLowestPriority) {
  Snapshot s = Queues(4);
  // One job of priority 2 frees enough alone: it goes rather than two lower ones.
  s.running = {Cpus(101, 1, 1, 3), Cpus(102, 1, 0, 2), Cpus(103, 2, 2, 1)};
  s.pending = {Job(1, "default", 2, 0, 5)};
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{103}));
  // Of two that would each do, the lower priority one, however old.
  s.running = {Cpus(101, 2, 1, 1), Cpus(102, 2, 0, 60)};
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{102}));
  // None alone suffices: in order 101, 102, 103 until 4 CPUs are free, then
  // 101 turns out not to be needed.
  s = Queues(5);
  s.running = {Cpus(101, 1, 0, 1), Cpus(102, 2, 1, 1), Cpus(103, 2, 2, 1)};
  s.pending = {Job(1, "default", 4, 0, 5)};
  Decision d = Decide(s);
  EXPECT_EQ(Victims(d), (std::vector<int64_t>{102, 103}));
  for (const PreemptDecision& p : d.preempt) EXPECT_EQ(p.preemptor, 1);
}

TEST(FairSharePreemptionTest, NeverANonPreemptibleOrAStoppingJob) {
  Snapshot s = Queues(4);
  s.running = {Cpus(101, 2, 0, 1), Cpus(102, 2, 0, 1)};
  s.running[0].preemptible = false;
  s.running[1].stopping = true;
  s.pending = {Job(1, "default", 2, 0, 5)};
  Decision d = Decide(s);
  // Job 102 already stops and frees enough: no new victim.
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue default; needs 2 cpu; queue default uses 4/4 cpu (nominal 4, no cohort "
            "to borrow from); waiting for job 102 to stop");
  s.pending = {Job(1, "default", 4, 0, 5)};
  EXPECT_TRUE(Decide(s).preempt.empty());
}

TEST(FairSharePreemptionTest, WhatAStoppingJobFreesIsCountedOnOnce) {
  Snapshot s = Queues(4, {"a", "b"});
  s.running = {Running(102, "a", 2, {}, 0), Running(103, "b", 2, {}, 0)};
  s.running[0].stopping = true;
  s.pending = {Job(1, "a", 2, 0, 5), Job(2, "b", 2, 0, 5)};
  Decision d = Decide(s);
  // Job 1 waits for job 102; job 2 cannot count on it too, so it preempts.
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue a; needs 2 cpu; waiting for resources: needs 2 CPUs, 0 CPUs free; "
            "waiting for job 102 to stop");
  ASSERT_EQ(Victims(d), (std::vector<int64_t>{103}));
  EXPECT_EQ(d.preempt[0].preemptor, 2);
}

TEST(FairSharePreemptionTest, WhatVictimsFreeIsKeptForThePreemptor) {
  Snapshot s = Queues(6);
  s.running = {Cpus(101, 4, 0, 1)};
  // Job 2 would fit beside job 1's victim now, and end in a minute: the
  // victim's resources are job 1's all the same.
  s.pending = {Job(1, "default", 6, 0, 5), Job(2, "default", 2, 0, 0, absl::Minutes(1))};
  Decision d = Decide(s);
  EXPECT_EQ(Victims(d), (std::vector<int64_t>{101}));
  EXPECT_TRUE(d.start.empty());
  EXPECT_NE(d.waiting[2].reason.find("job 1"), std::string::npos) << d.waiting[2].reason;
}

TEST(FairSharePreemptionTest, APreemptorKeepsWhatItsStoppingVictimFreesWithoutTheReservation) {
  // Worked by hand. 30 CPUs; queues a and b, 10 CPUs each, no cohort. Job 1
  // (a, 10 CPUs, priority 5) preempted job 101 (a, 6 CPUs) in the last round;
  // 101 still stops. Job 2 (b, priority 10) goes first in turn order and
  // takes the one reservation: it waits for job 201 (b, 10 CPUs, an hour
  // left). Job 3 (a, 4 CPUs, priority 0) would fit now beside 101 (a: 6 + 4)
  // and beside job 2's reservation, but once 101 has stopped job 1 needs all
  // of a's 10: had job 3 started, job 1 would preempt it next (as Kueue's
  // preemptor, which holds its quota in every cycle until its victims are
  // gone, would never let it start).
  Snapshot s = Machine(30);
  s.queues = {Queue("a", "", Res(10)), Queue("b", "", Res(10))};
  s.running = {Running(201, "b", 10, {}, 10, absl::Minutes(1), absl::Hours(1)),
               Running(101, "a", 6, {}, 0)};
  s.running[1].stopping = true;
  s.pending = {Job(1, "a", 10, 0, 5), Job(2, "b", 5, 0, 10), Job(3, "a", 4, 0, 0)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty()) << "job " << d.start[0].seq << " started";
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_NE(d.waiting[1].reason.find("waiting for job 101 to stop"), std::string::npos)
      << d.waiting[1].reason;
  EXPECT_NE(d.waiting[2].reason.find("201 (est. start"), std::string::npos)
      << d.waiting[2].reason;
  // 101 has stopped: job 1 starts, and nobody is preempted again.
  s.running.pop_back();
  d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{1}));
  EXPECT_TRUE(d.preempt.empty());
}

// vision and nlp lend each other their nominal 4 GPUs; nlp runs 8 on the 8
// GPUs, 4 of them borrowed (the two started last, at the same priority).
Snapshot Borrowed() {
  Snapshot s = Machine(64, 8);
  s.queues = {Queue("vision", "lab", Res(16, 4), Res(0, 2)), Queue("nlp", "lab", Res(16, 4))};
  s.running = {Running(201, "nlp", 1, {"0", "1"}, 0, absl::Minutes(20)),
               Running(202, "nlp", 1, {"2", "3"}, 0, absl::Minutes(10)),
               Running(203, "nlp", 1, {"4", "5"}, 0, absl::Minutes(5)),
               Running(204, "nlp", 1, {"6", "7"}, 0, absl::Minutes(1))};
  return s;
}

TEST(FairSharePreemptionTest, AQueueReclaimsItsNominalQuotaFromABorrower) {
  Snapshot s = Borrowed();
  s.pending = {Job(1, "vision", 1, 2)};
  Decision d = Decide(s);
  ASSERT_EQ(d.preempt.size(), 1u);
  EXPECT_EQ(d.preempt[0].victim, 204);
  EXPECT_EQ(d.preempt[0].reason, "Preempted by job 1 (queue vision reclaiming gpu)");
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue vision; needs 1 cpu, 2 gpu; queue vision uses 0/4 gpu (nominal 4, may "
            "borrow 2, cohort has 0 free); preempting job 204");
  // Its whole nominal quota: both borrowed jobs, never those within nlp's quota.
  s.pending = {Job(1, "vision", 1, 4)};
  EXPECT_EQ(Victims(Decide(s)), (std::vector<int64_t>{204, 203}));
  // Beyond its nominal quota it borrows: no reclaiming for that.
  s.pending = {Job(1, "vision", 1, 6)};
  EXPECT_TRUE(Decide(s).preempt.empty());
}

// a, b and c lend each other their nominal 4 GPUs of 12; b borrows 2 (job
// 203, started last), a runs 1 GPU, c 2, and 3 GPUs are free.
Snapshot ThreeQueues() {
  Snapshot s = Machine(64, 12);
  s.queues = {Queue("a", "lab", Res(16, 4)), Queue("b", "lab", Res(16, 4)),
              Queue("c", "lab", Res(16, 4))};
  s.running = {Running(301, "a", 1, {"0"}), Running(201, "b", 1, {"1", "2"}, 0, absl::Minutes(20)),
               Running(202, "b", 1, {"3", "4"}, 0, absl::Minutes(10)),
               Running(203, "b", 1, {"5", "6"}, 0, absl::Minutes(1)),
               Running(401, "c", 1, {"7", "8"})};
  return s;
}

TEST(FairSharePreemptionTest,
     AQueueBelowItsQuotaReclaimsForAGangThatWouldBorrowLessThanTheVictims) {
  Snapshot s = ThreeQueues();
  // Queue a uses 1 of its 4: a gang of 4 would borrow 1 GPU, less than b
  // borrows (2 at the same weight), so it takes b's borrowed job back.
  s.pending = {Job(1, "a", 1, 4)};
  Decision d = Decide(s);
  EXPECT_EQ(Victims(d), (std::vector<int64_t>{203}));
  EXPECT_EQ(d.preempt[0].reason, "Preempted by job 1 (queue a reclaiming gpu)");
  // Once it runs, b (back at its nominal quota) cannot take it back: b's
  // gang would borrow as much as a does.
  s.running.erase(s.running.begin() + 3);  // 203 has stopped
  s.running.push_back(Running(1, "a", 1, {"9", "10", "11", "5"}));
  s.pending = {Job(203, "b", 1, 2)};
  EXPECT_TRUE(Decide(s).preempt.empty());
}

TEST(FairSharePreemptionTest, AGangThatWouldBorrowAsMuchAsTheVictimsQueueReclaimsNothing) {
  Snapshot s = ThreeQueues();
  s.running[0] = Running(301, "a", 1, {"0", "9"});
  // a would borrow 2, as much as b does: no preemption, it waits.
  s.pending = {Job(1, "a", 1, 4)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_NE(d.waiting[1].reason.find("waiting for job"), std::string::npos) << d.waiting[1].reason;
}

TEST(FairSharePreemptionTest, NeverAJobWithinItsQueuesNominalQuotaForAnotherQueue) {
  // Quotas promise more than the machine has: nlp runs within its own.
  Snapshot s = Machine(64, 4);
  s.queues = {Queue("vision", "lab", Res(16, 4)), Queue("nlp", "lab", Res(16, 4))};
  s.running = {Running(201, "nlp", 1, {"0", "1"}), Running(202, "nlp", 1, {"2", "3"})};
  s.pending = {Job(1, "vision", 1, 2, 10)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_EQ(d.waiting[1].reason,
            "1st in queue vision; needs 1 cpu, 2 gpu; waiting for resources: needs 2 GPUs, 0 "
            "free; waiting for job 201 (no time limit, start unknown)");
}

TEST(FairSharePreemptionTest, StoppingVictimsAreNotChosenAgain) {
  Snapshot s = Borrowed();
  s.running[3].stopping = true;  // 204, preempted in an earlier round
  s.pending = {Job(1, "vision", 1, 2)};
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_NE(d.waiting[1].reason.find("waiting for job 204 to stop"), std::string::npos)
      << d.waiting[1].reason;
}

// Kueue's baseline in small: queues a and b of cohort lab (20 CPUs each),
// queue d alone. b runs 25 (5 borrowed, not preemptible), a runs 5 at
// priority 200: the cohort has 10 CPUs free. Job 4 heads d (priority 300,
// first in turn order) and holds the round's one reservation, waiting for
// d's job 401. Job 1 heads a (20 CPUs at priority 200): it would borrow 5,
// as much as b does, so it may not reclaim, and has nothing of lower
// priority to preempt: it waits, without a reservation. Job 2 (a, 10 CPUs,
// priority 100) would fit the 10 free CPUs, but that is room job 1 waits
// for: started there, it would be job 1's victim as soon as the cohort had
// 10 more (in dlp-bench-kueue-baseline most preemptions were such jobs).
Snapshot HeadWithoutReservation() {
  Snapshot s = Machine(200);
  s.queues = {Queue("a", "lab", Res(20)), Queue("b", "lab", Res(20)), Queue("d", "", Res(20))};
  s.running = {Running(101, "a", 5, {}, 200), Running(201, "b", 20), Running(202, "b", 5),
               Running(401, "d", 20, {}, 300)};
  s.running[1].preemptible = s.running[2].preemptible = false;
  s.pending = {Job(4, "d", 10, 0, 300), Job(1, "a", 20, 0, 200), Job(2, "a", 10, 0, 100)};
  return s;
}

TEST(FairSharePreemptionTest, AJobTheHeadWouldPreemptDoesNotTakeTheRoomItWaitsFor) {
  Snapshot s = HeadWithoutReservation();
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty()) << "job " << d.start[0].seq << " started";
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_NE(d.waiting[1].reason.find("not reserved yet: job 4 ahead of it reserves"),
            std::string::npos)
      << d.waiting[1].reason;
  EXPECT_EQ(d.waiting[2].reason,
            "2nd in queue a; needs 10 cpu; the room it would take is kept for job 1 (head of "
            "queue a), which would preempt it; waiting behind job 1 in queue a");
  // At the head's priority it is no victim of it: it backfills as before.
  s.pending[2].priority = 200;
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{2}));
}

TEST(FairSharePreemptionTest, ABorrowerTheHeadWouldReclaimDoesNotTakeTheRoomItWaitsFor) {
  // b runs 30 (10 borrowed), a 5: 5 of the cohort's 40 are free. Job 3 (b,
  // 5 CPUs) would take them beyond b's nominal quota, and job 1 would
  // reclaim them (borrowing 5 it is below b): they stay free for job 1.
  Snapshot s = HeadWithoutReservation();
  s.running[2].demand = Res(10);
  s.pending[2] = Job(3, "b", 5);
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty()) << "job " << d.start[0].seq << " started";
  EXPECT_NE(d.waiting[3].reason.find("the room it would take is kept for job 1 (head of queue a), "
                                     "which would preempt it"),
            std::string::npos)
      << d.waiting[3].reason;
  // With b borrowing 5, as much as a would, job 1 reclaims nothing from b:
  // job 3 starts in the 10 free CPUs.
  s.running[2].demand = Res(5);
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{3}));
}

TEST(FairSharePreemptionTest, AJobTheHeadWouldPreemptStillTakesRoomTheHeadDoesNotNeed) {
  // Job 1 needs 2 CPUs and 4 GPUs, and no GPU is free: the CPUs beside its
  // 2 are no room it waits for, and job 2 asks for CPUs only.
  Snapshot s = HeadWithoutReservation();
  s.capacity = Res(200, 4);
  for (QueueConfig& q : s.queues) q.nominal = Res(20, 4);
  s.running.push_back(Running(402, "d", 0, {"0", "1", "2", "3"}, 300));
  s.pending[1] = Job(1, "a", 2, 4, 200);
  s.pending[2] = Job(2, "a", 2, 0, 100);
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace dlp::server
