// What the default policy refuses at submit, and how it explains a wait.
#include <gtest/gtest.h>

#include "policy_test_util.h"
#include "server/scheduler/explanation.h"
#include "server/scheduler/fair_share_policy.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

Snapshot Lab() {
  Snapshot s = Machine(64, 16);
  s.queues = {Queue("vision", "lab", Res(16, 4), Res(0, 2)), Queue("nlp", "lab", Res(16, 4)),
              Queue("solo", "", Res(4, 2))};
  s.queues[0].min_priority = 0;
  s.queues[0].max_priority = 5;
  return s;
}

std::string Refusal(const PendingJob& job, const Snapshot& s) {
  absl::Status status = FairSharePolicy().Admit(job, s);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  return std::string(status.message());
}

TEST(FairShareAdmitTest, RefusesWhatCanNeverRunWithTheNumbers) {
  const Snapshot s = Lab();
  EXPECT_EQ(Refusal(Job(1, "vision", 65), s),
            "the job can never fit: needs 65 CPUs, this machine has 64 CPUs");
  EXPECT_EQ(Refusal(Job(1, "x", 1), s), "queue \"x\" does not exist; queues: vision, nlp, solo");
  EXPECT_EQ(Refusal(Job(1, "vision", 1, 0, 9), s),
            "priority 9 is outside queue vision's range 0..5");
  EXPECT_EQ(Refusal(Job(1, "vision", 1, 8), s),
            "the job can never fit: needs 8 GPUs; queue vision may use at most 6 (nominal 4, may "
            "borrow 2)");
  // No borrowing limit: all that the cohort's other queues lend.
  EXPECT_EQ(Refusal(Job(1, "nlp", 1, 12), s),
            "the job can never fit: needs 12 GPUs; queue nlp may use at most 8 (nominal 4, may "
            "borrow 4)");
  EXPECT_EQ(Refusal(Job(1, "solo", 1, 3), s),
            "the job can never fit: needs 3 GPUs; queue solo may use at most 2 (nominal 2, no "
            "cohort to borrow from)");
  PendingJob pinned = Job(1, "vision", 1, 6);
  pinned.preemptible = false;
  EXPECT_EQ(Refusal(pinned, s),
            "the job can never fit: needs 6 GPUs; a job with preemptible: false must fit in "
            "queue vision's nominal quota of 4");
  EXPECT_TRUE(FairSharePolicy().Admit(Job(1, "vision", 16, 6), s).ok());
  EXPECT_TRUE(FairSharePolicy().Admit(Job(1, "anything", 64), Machine(64)).ok());
}

TEST(FairShareAdmitTest, ExplainsPositionNeedsQuotaAndWhatItWaitsFor) {
  // vision runs its nominal 4 GPUs; nlp its own 4, job 17 ending in 12 minutes.
  Snapshot s = Machine(64, 8);
  s.queues = {Queue("vision", "lab", Res(16, 4), Res(0, 2)), Queue("nlp", "lab", Res(16, 4))};
  s.running = {Running(11, "vision", 1, {"0", "1"}), Running(12, "vision", 1, {"2", "3"}),
               Running(17, "nlp", 1, {"4", "5", "6", "7"}, 0, absl::Minutes(48), absl::Hours(1))};
  s.pending = {Job(21, "vision", 1, 2), Job(22, "vision", 1, 2), Job(23, "vision", 1, 2)};
  Decision d = FairSharePolicy().Schedule(s);
  ExpectConsistent(s, d);
  const std::string quota =
      "queue vision uses 4/4 gpu (nominal 4, may borrow 2, cohort has 0 free)";
  EXPECT_EQ(d.waiting[21].reason, "1st in queue vision; needs 1 cpu, 2 gpu; " + quota +
                                      "; waiting for job 17 (est. start in 12 min)");
  EXPECT_EQ(d.waiting[21].position, 1);
  EXPECT_EQ(d.waiting[21].estimated_start, kNow + absl::Minutes(12));
  EXPECT_EQ(d.waiting[21].trace.lines(),
            (std::vector<std::string>{
                "queue vision: head of the queue, effective priority 0 (priority 0, +0 for "
                "waiting)",
                "turn: borrows; queue vision's weighted share of what it borrows is 0.000",
                "cannot start now: " + quota,
                "preemption: 0 candidates (lower priority in its queue), not enough to fit",
                "reservation: waiting for job 17 (est. start in 12 min); jobs behind it may "
                "only backfill"}));
  EXPECT_EQ(d.waiting[23].reason, "3rd in queue vision; needs 1 cpu, 2 gpu; " + quota +
                                      "; waiting behind job 21 in queue vision");
  EXPECT_EQ(d.waiting[23].position, 3);
  EXPECT_FALSE(d.waiting[23].estimated_start.has_value());
}

TEST(FairShareAdmitTest, AJobInAnUnknownQueueWaitsWithTheQueuesNamed) {
  Snapshot s = Lab();
  s.pending = {Job(1, "gone", 1)};
  Decision d = FairSharePolicy().Schedule(s);
  EXPECT_EQ(d.waiting[1].reason, "queue gone does not exist; queues: vision, nlp, solo");
}

TEST(FairShareAdmitTest, Words) {
  using fair_share::Ordinal;
  EXPECT_EQ(Ordinal(1), "1st");
  EXPECT_EQ(Ordinal(2), "2nd");
  EXPECT_EQ(Ordinal(3), "3rd");
  EXPECT_EQ(Ordinal(4), "4th");
  EXPECT_EQ(Ordinal(11), "11th");
  EXPECT_EQ(Ordinal(13), "13th");
  EXPECT_EQ(Ordinal(22), "22nd");
  EXPECT_EQ(Ordinal(111), "111th");
  EXPECT_EQ(fair_share::StartsIn(kNow + absl::Seconds(40), kNow), "in 40 s");
  EXPECT_EQ(fair_share::StartsIn(kNow + absl::Minutes(185), kNow), "in 3 h 5 min");
}

}  // namespace
}  // namespace dlp::server
