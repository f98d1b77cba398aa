// The default policy with a fair-share history (Snapshot::decayed_use): the
// order of borrowers and the reclaim rule weigh what queues used lately,
// not only what they hold now. Without a half-life the history is ignored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy_test_util.h"
#include "server/scheduler/fair_share_policy.h"
#include "server/scheduler/queue_usage.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

// x, y, z and w lend each other their nominal 2 CPUs of 8; x runs 3 (borrows
// 1), y 4 (borrows 2): 1 CPU is free, and each waits for 1 more.
Snapshot TwoBorrowers() {
  Snapshot s = Machine(8);
  s.queues = {Queue("x", "lab", Res(2)), Queue("y", "lab", Res(2)), Queue("z", "lab", Res(2)),
              Queue("w", "lab", Res(2))};
  s.running = {Running(101, "x", 3), Running(201, "y", 4)};
  s.pending = {Job(1, "x", 1), Job(2, "y", 1)};
  return s;
}

TEST(FairShareHistoryPolicyTest, ABorrowerThatUsedLessLatelyGoesFirst) {
  Snapshot s = TwoBorrowers();
  // Now only: x borrows less, so x goes first.
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{1}));
  // x used 6 CPUs on average lately, y none: y goes first.
  s.decayed_use["x"] = Res(6);
  s.fair_share_half_life = absl::Hours(1);
  Decision d = Decide(s);
  EXPECT_EQ(Started(d), (std::vector<int64_t>{2}));
  EXPECT_NE(d.waiting[1].reason.find("queue x uses 3/2 cpu"), std::string::npos)
      << d.waiting[1].reason;
  // The same history with no half-life is none: as now only.
  s.fair_share_half_life = absl::ZeroDuration();
  EXPECT_EQ(Started(Decide(s)), (std::vector<int64_t>{1}));
}

TEST(FairShareHistoryPolicyTest, WhyNamesTheQueuesStanding) {
  Snapshot s = TwoBorrowers();
  s.running.push_back(Running(301, "z", 1));  // the machine is full: both wait
  s.decayed_use["x"] = Res(6);
  s.fair_share_half_life = absl::Hours(1);
  Decision d = Decide(s);
  EXPECT_TRUE(d.start.empty());
  EXPECT_THAT(d.waiting[1].trace.lines(),
              ::testing::Contains("fair share: queue x is ahead of its share: used 300% of its "
                                  "nominal cpu over the last ~1h (half-life)"));
  EXPECT_THAT(d.waiting[2].trace.lines(),
              ::testing::Contains("fair share: queue y is behind its share: used 0% of its "
                                  "nominal cpu over the last ~1h (half-life)"));
  EXPECT_THAT(d.waiting[2].trace.lines(),
              ::testing::Contains(
                  "turn: borrows; queue y's fair-share standing is 0.000 (lowest goes first)"));
}

// x and y lend each other their nominal 4 CPUs; each runs 4 (x for an hour
// more, y for two) and waits with an 8-CPU job: x's of priority 10, y's
// submitted 30 minutes earlier.
Snapshot TwoGangs() {
  Snapshot s = Machine(8);
  s.queues = {Queue("x", "lab", Res(4)), Queue("y", "lab", Res(4))};
  s.running = {Running(101, "x", 4, {}, 0, absl::Minutes(1), absl::Hours(1) + absl::Minutes(1)),
               Running(201, "y", 4, {}, 0, absl::Minutes(1), absl::Hours(2) + absl::Minutes(1))};
  s.pending = {Job(1, "x", 8, 0, 10), Job(2, "y", 8)};
  s.pending[0].submitted = kNow - absl::Minutes(1);
  s.pending[1].submitted = kNow - absl::Minutes(30);
  return s;
}

TEST(FairShareHistoryPolicyTest, TheHeadThatWaitedLongestReserves) {
  Snapshot s = TwoGangs();
  // Now only: the first blocked head in turn order (x, by priority) reserves.
  Decision d = Decide(s);
  EXPECT_EQ(d.waiting[1].estimated_start, kNow + absl::Hours(2));
  EXPECT_NE(d.waiting[2].reason.find("not reserved yet: job 1 ahead of it reserves"),
            std::string::npos)
      << d.waiting[2].reason;
  // With a history the reservation stays with the head that has waited
  // longest, whatever the turn order: y's.
  s.fair_share_half_life = absl::Hours(1);
  d = Decide(s);
  EXPECT_EQ(d.waiting[2].estimated_start, kNow + absl::Hours(2));
  EXPECT_FALSE(d.waiting[1].estimated_start);
  EXPECT_NE(d.waiting[1].reason.find("not reserved yet: job 2 ahead of it reserves"),
            std::string::npos)
      << d.waiting[1].reason;
}

// a, b and c lend each other their nominal 4 GPUs of 12; a runs 2, b 6 (it
// borrows 2, job 203 started last), c 2; a's 4-GPU gang would borrow 2.
Snapshot ThreeQueues() {
  Snapshot s = Machine(64, 12);
  s.queues = {Queue("a", "lab", Res(16, 4)), Queue("b", "lab", Res(16, 4)),
              Queue("c", "lab", Res(16, 4))};
  s.running = {
      Running(301, "a", 1, {"0", "9"}), Running(201, "b", 1, {"1", "2"}, 0, absl::Minutes(20)),
      Running(202, "b", 1, {"3", "4"}, 0, absl::Minutes(10)),
      Running(203, "b", 1, {"5", "6"}, 0, absl::Minutes(1)), Running(401, "c", 1, {"7", "8"})};
  s.pending = {Job(1, "a", 1, 4)};
  s.fair_share_half_life = absl::Hours(1);
  return s;
}

TEST(FairShareHistoryPolicyTest, AQueueBehindLatelyReclaimsForAGangThatWouldBorrow) {
  Snapshot s = ThreeQueues();
  // Now only, a would borrow as much as b: nothing is preempted.
  s.fair_share_half_life = absl::ZeroDuration();
  EXPECT_TRUE(Decide(s).preempt.empty());
  // a used nothing lately, b its 6 GPUs: a takes b's borrowed job back.
  s.fair_share_half_life = absl::Hours(1);
  s.decayed_use["b"] = Res(3, 6);
  Decision d = Decide(s);
  EXPECT_EQ(Victims(d), (std::vector<int64_t>{203}));
  EXPECT_EQ(d.preempt[0].reason, "Preempted by job 1 (queue a reclaiming gpu)");
}

TEST(FairShareHistoryPolicyTest, AQueueAheadLatelyReclaimsNothing) {
  Snapshot s = ThreeQueues();
  s.decayed_use["a"] = Res(3, 6);
  Decision d = Decide(s);
  EXPECT_TRUE(d.preempt.empty());
  // Never a job within its own queue's nominal quota, however far ahead.
  s.decayed_use = {{"b", Res(48, 12)}};
  s.running.erase(s.running.begin() + 3);  // b runs 4, its nominal quota
  s.pending = {Job(1, "a", 1, 8)};
  EXPECT_TRUE(Decide(s).preempt.empty());
}

TEST(FairShareHistoryPolicyTest, WithoutConfiguredQueuesTheHistoryIsIgnored) {
  Snapshot s = Machine(4);
  s.running = {Running(101, "x", 2)};
  s.pending = {Job(1, "x", 2), Job(2, "y", 2), Job(3, "y", 1)};
  const Decision before = Decide(s);
  s.fair_share_half_life = absl::Hours(1);
  s.decayed_use = {{"x", Res(4)}, {"y", Res(0)}};
  const Decision after = Decide(s);
  EXPECT_EQ(Started(after), Started(before));
  EXPECT_EQ(after.waiting.size(), before.waiting.size());
  for (const auto& [seq, why] : before.waiting) {
    EXPECT_EQ(after.waiting.at(seq).reason, why.reason);
    EXPECT_EQ(after.waiting.at(seq).trace.lines(), why.trace.lines());
  }
}

TEST(FairShareHistoryPolicyTest, QueueStatusesShowTheRecentUse) {
  Snapshot s = TwoBorrowers();
  s.decayed_use["x"] = Res(3);
  EXPECT_FALSE(QueueStatuses(s)[0].recent);
  s.fair_share_half_life = absl::Minutes(30);
  const std::vector<QueueStatus> statuses = QueueStatuses(s);
  ASSERT_TRUE(statuses[0].recent);
  EXPECT_EQ(statuses[0].recent->cpu_millis, 3000);
  EXPECT_EQ(statuses[0].recent_percent, 150);
  EXPECT_EQ(statuses[0].half_life, absl::Minutes(30));
  ASSERT_TRUE(statuses[1].recent);
  EXPECT_EQ(statuses[1].recent_percent, 0);
}

}  // namespace
}  // namespace dlp::server
