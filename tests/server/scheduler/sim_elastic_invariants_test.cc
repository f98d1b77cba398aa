// The elastic invariants of sim_invariants.h can fail: a start outside
// [minCount, count], a resize below the minimum or of a job re-forming, a
// resize that is not a whole gang, a grow within the interval, a shrink
// within it for a job that could not preempt it, and a grow past capacity
// are each caught; a sound shrink and grow are not.
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/sim_invariants.h"

namespace dlp::server {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

ElasticRole Workers(int min, int max) {
  return {.role = "worker", .min = min, .max = max, .per_replica = {1000, 0, 1000},
          .gpu_millis = 1000};
}

// Job 7 runs 2 of [1, 4] one-GPU workers on devices 0 and 1 of 4.
Snapshot Machine(absl::Duration since_resize = absl::Minutes(5)) {
  Snapshot s;
  s.now = kNow;
  s.capacity = {4000, 0, 4000};
  RunningJob job{.seq = 7, .queue = "default", .demand = {2000, 0, 2000}};
  job.placement = {{"worker-0", {{"0", 1000}}}, {"worker-1", {{"1", 1000}}}};
  job.elastic = Workers(1, 4);
  job.size = 2;
  job.resized = kNow - since_resize;
  s.running = {job};
  return s;
}

ResizeDecision Grow(int to) {
  ResizeDecision r{.seq = 7, .from = 2, .to = to};
  r.placement = {{"worker-0", {{"0", 1000}}}, {"worker-1", {{"1", 1000}}}};
  for (int i = 2; i < to; ++i) {
    r.placement.push_back({absl::StrCat("worker-", i), {{absl::StrCat(i), 1000}}});
  }
  return r;
}

std::map<std::string, int> Counts(const Snapshot& s, const Decision& d) {
  InvariantChecker checker(3);
  checker.Check(s, d);
  return checker.counts();
}

// Job 7 shrinks to 1 for waiting job 8 of `queue` and `priority`.
Snapshot WithWaiting(Snapshot s, const std::string& queue, int priority) {
  s.pending = {{.seq = 8, .queue = queue, .priority = priority, .demand = {1000, 0, 1000}}};
  return s;
}
Decision ShrinkFor8() {
  Decision d;
  d.resize = {{.seq = 7, .from = 2, .to = 1, .placement = {{"worker-0", {{"0", 1000}}}},
               .for_job = 8}};
  return d;
}

TEST(SimElasticInvariants, SoundResizesPass) {
  Decision d;
  d.resize = {Grow(4)};
  EXPECT_TRUE(Counts(Machine(), d).empty());
  // A shrink for a job that could preempt it is never held back by the interval.
  EXPECT_TRUE(Counts(WithWaiting(Machine(absl::Seconds(1)), "default", 5), ShrinkFor8()).empty());
  EXPECT_TRUE(Counts(WithWaiting(Machine(absl::Seconds(1)), "other", 0), ShrinkFor8()).empty());
  // Past the interval, any shrink is sound.
  EXPECT_TRUE(Counts(WithWaiting(Machine(), "default", 0), ShrinkFor8()).empty());
}

TEST(SimElasticInvariants, AShrinkForAnEqualWithinTheIntervalIsAResizeLoop) {
  EXPECT_EQ(Counts(WithWaiting(Machine(absl::Seconds(30)), "default", 0), ShrinkFor8())
                .at("resize-interval"),
            1);
  // A shrink for no waiting job at all, too.
  Decision d = ShrinkFor8();
  d.resize[0].for_job = 0;
  EXPECT_EQ(Counts(Machine(absl::Seconds(30)), d).at("resize-interval"), 1);
}

TEST(SimElasticInvariants, EachFlawIsCaught) {
  Decision d;
  d.resize = {{.seq = 7, .from = 2, .to = 0}};
  EXPECT_EQ(Counts(Machine(), d).at("elastic"), 1);  // below its minimum
  d.resize = {Grow(4)};
  d.resize[0].placement.pop_back();
  EXPECT_EQ(Counts(Machine(), d).at("gang"), 1);  // worker-3 placed nowhere
  d.resize = {Grow(3)};
  EXPECT_EQ(Counts(Machine(absl::Seconds(30)), d).at("resize-interval"), 1);
  Snapshot reforming = Machine();
  reforming.running[0].resizing_to = 2;
  EXPECT_EQ(Counts(reforming, d).at("elastic"), 1);
  Snapshot small = Machine();
  small.capacity = {3000, 0, 3000};
  d.resize = {Grow(4)};
  EXPECT_GE(Counts(small, d).at("capacity"), 1);
}

TEST(SimElasticInvariants, StartsOutsideTheRangeAreCaught) {
  Snapshot s = Machine();
  s.running.clear();
  PendingJob job{.seq = 9, .queue = "default", .demand = {4000, 0, 4000}};
  job.elastic = Workers(2, 4);
  for (int i = 0; i < 4; ++i) job.replicas.push_back({absl::StrCat("worker-", i), 1000, ""});
  s.pending = {job};
  Decision d;
  d.start = {{.seq = 9, .placement = {{"worker-0", {{"0", 1000}}}}, .size = 1}};
  EXPECT_EQ(Counts(s, d).at("elastic"), 1);
  d.start = {{.seq = 9,
              .placement = {{"worker-0", {{"0", 1000}}}, {"worker-1", {{"1", 1000}}}},
              .size = 2}};
  EXPECT_TRUE(Counts(s, d).empty()) << absl::StrJoin(Counts(s, d), ",", absl::PairFormatter("="));
}

}  // namespace
}  // namespace dlp::server
