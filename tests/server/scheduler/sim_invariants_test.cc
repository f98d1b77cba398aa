// Each invariant the simulator checks can fail: a toy policy with one flaw at
// a time runs a small trace, and the check named for that flaw must catch it.
// The same trace under PriorityFifoPolicy breaks nothing.
#include "server/scheduler/sim_invariants.h"

#include <gtest/gtest.h>

#include <ostream>

#include "absl/strings/str_join.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/simulator.h"

namespace dlp::server {
namespace {

enum class Flaw {
  kOverCapacity,       // starts everything, placed as if the machine were empty
  kPartialGang,        // places only the first replica of a gang
  kStartAndPreempt,    // starts a job and names it as a victim in one decision
  kUnknownStart,       // starts a job that does not exist
  kPreemptGuaranteed,  // preempts a job that is not preemptible
  kBreakReservation,   // gives the head an estimate, then backfills past it
  kPreemptionLoop,     // preempts for a job it never starts
  kStarve,             // never starts job 3
  kEarlyEstimate,      // tells the head it starts in one second
};

// First fit in seq order; the first job that does not fit is the head and,
// unless the flaw says otherwise, blocks the rest.
class FlawedPolicy : public SchedulingPolicy {
 public:
  explicit FlawedPolicy(Flaw flaw) : flaw_(flaw) {}

  Decision Schedule(const Snapshot& s) const override {
    Decision d;
    ResourceVector used;
    for (const RunningJob& r : s.running) used += r.demand;
    DeviceUse use = UseOf(s.running);
    const std::vector<GpuDevice> devices = DevicesOf(s);
    const PendingJob* head = nullptr;
    for (const PendingJob& job : s.pending) {
      if (flaw_ == Flaw::kStarve && job.seq == 3) continue;
      if (flaw_ == Flaw::kPreemptionLoop && job.seq == s.pending.front().seq) continue;
      if (head != nullptr && flaw_ != Flaw::kBreakReservation) break;
      ResourceVector after = used;
      after += job.demand;
      DeviceUse trial = flaw_ == Flaw::kOverCapacity ? DeviceUse{} : use;
      auto placement = PlaceGpus(job.replicas, devices, trial);
      const bool fits = after.cpu_millis <= s.capacity.cpu_millis &&
                        after.gpu_millis <= s.capacity.gpu_millis && placement;
      if (!fits && flaw_ != Flaw::kOverCapacity) {
        if (head == nullptr) {
          head = &job;
          PendingExplanation& why = d.waiting[job.seq];
          why.position = 1;
          why.estimated_start =
              flaw_ == Flaw::kEarlyEstimate ? s.now + absl::Seconds(1) : LatestBoundedEnd(s);
        }
        continue;
      }
      if (!placement) continue;
      used = after;
      use = trial;
      if (flaw_ == Flaw::kPartialGang && placement->size() > 1) placement->pop_back();
      d.start.push_back({job.seq, std::move(*placement)});
    }
    Sabotage(s, d);
    return d;
  }

 private:
  static absl::Time LatestBoundedEnd(const Snapshot& s) {
    absl::Time latest = s.now;
    for (const RunningJob& r : s.running) {
      if (r.time_limit > absl::ZeroDuration()) latest = std::max(latest, r.started + r.time_limit);
    }
    return latest;
  }

  void Sabotage(const Snapshot& s, Decision& d) const {
    if (flaw_ == Flaw::kStartAndPreempt && !d.start.empty()) {
      d.preempt.push_back({d.start.front().seq, d.start.front().seq, "flaw"});
    }
    if (flaw_ == Flaw::kUnknownStart) d.start.push_back({424242, {}});
    if (s.pending.empty()) return;
    for (const RunningJob& r : s.running) {
      if (r.stopping) continue;
      if ((flaw_ == Flaw::kPreemptGuaranteed && !r.preemptible) ||
          (flaw_ == Flaw::kPreemptionLoop && r.preemptible)) {
        d.preempt.push_back({r.seq, s.pending.front().seq, "flaw"});
      }
    }
  }

  Flaw flaw_;
};

// 4 CPUs and 4 GPUs, two queues of one cohort with half each.
SimConfig SmallMachine() {
  SimConfig config;
  config.capacity = {4000, 0, 4000};
  config.queues = {{.name = "a", .cohort = "c", .nominal = {2000, 0, 2000}},
                   {.name = "b", .cohort = "c", .nominal = {2000, 0, 2000}}};
  config.cycle = absl::Minutes(1);
  return config;
}

SimJob Job(int64_t seq, std::string queue, int minute, int replicas, int64_t gpu_each,
           absl::Duration runtime, absl::Duration limit, bool preemptible = true) {
  SimJob sim{.runtime = runtime};
  sim.job = {.seq = seq,
             .tenant = queue,
             .queue = std::move(queue),
             .demand = {1000, 0, gpu_each * replicas},
             .submitted = absl::UnixEpoch() + absl::Minutes(minute),
             .time_limit = limit,
             .preemptible = preemptible};
  for (int r = 0; r < replicas; ++r) {
    sim.job.replicas.push_back({"worker-" + std::to_string(r), gpu_each, ""});
  }
  return sim;
}

// Job 1 (2 GPUs, bounded, not preemptible) runs; job 2 (4 GPUs) heads the
// queue and waits for it; job 3 (2 GPUs, unbounded) could backfill.
std::vector<SimJob> Trace() {
  return {Job(1, "a", 0, 2, 1000, absl::Hours(1), absl::Hours(2), /*preemptible=*/false),
          Job(2, "b", 1, 2, 2000, absl::Hours(1), absl::Hours(2)),
          Job(3, "b", 2, 1, 2000, absl::Hours(5), absl::ZeroDuration())};
}

struct FlawCase {
  Flaw flaw;
  std::string invariant;
};

void PrintTo(const FlawCase& c, std::ostream* os) { *os << c.invariant; }

class CheckerCatchesTest : public ::testing::TestWithParam<FlawCase> {};

TEST_P(CheckerCatchesTest, TheFlawedPolicyIsCaught) {
  FlawedPolicy policy(GetParam().flaw);
  SimConfig config = SmallMachine();
  config.strict_head_estimates = GetParam().flaw == Flaw::kEarlyEstimate;
  const SimResult r = Simulate(policy, config, Trace());
  EXPECT_GT(r.violation_counts.count(GetParam().invariant), 0u)
      << absl::StrJoin(r.violations, "\n");
}

INSTANTIATE_TEST_SUITE_P(Flaws, CheckerCatchesTest,
                         ::testing::Values(FlawCase{Flaw::kOverCapacity, "capacity"},
                                           FlawCase{Flaw::kPartialGang, "gang"},
                                           FlawCase{Flaw::kStartAndPreempt, "start-preempt"},
                                           FlawCase{Flaw::kUnknownStart, "decision"},
                                           FlawCase{Flaw::kPreemptGuaranteed, "guarantee"},
                                           FlawCase{Flaw::kBreakReservation, "reservation"},
                                           FlawCase{Flaw::kPreemptionLoop, "preemption-loop"},
                                           FlawCase{Flaw::kStarve, "starvation"},
                                           FlawCase{Flaw::kEarlyEstimate, "late-head"}),
                         [](const ::testing::TestParamInfo<FlawCase>& info) {
                           std::string name = info.param.invariant;
                           std::erase(name, '-');
                           return name;
                         });

TEST(CheckerTest, TheSameTraceIsCleanUnderPriorityFifo) {
  PriorityFifoPolicy policy;
  const SimResult r = Simulate(policy, SmallMachine(), Trace());
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_EQ(r.completed, 3);
}

// The guarantees beside the non-preemptible flag: a victim of another queue
// only while its queue borrows, of the same queue only for a higher priority.
TEST(CheckerTest, VictimsWithinTheirGuaranteesAreCaught) {
  InvariantChecker checker(3);
  Snapshot s;
  s.capacity = {4000, 0, 4000};
  s.queues = SmallMachine().queues;
  s.running.push_back({.seq = 1, .queue = "a", .demand = {1000, 0, 2000}});
  s.pending.push_back({.seq = 2, .queue = "b", .demand = {1000, 0, 4000}});
  checker.Check(s, {.preempt = {{1, 2, "reclaim"}}});
  EXPECT_EQ(checker.counts().count("guarantee"), 1u);
  InvariantChecker same_queue(3);  // within a queue only for a higher priority
  s.pending[0].queue = "a";
  same_queue.Check(s, {.preempt = {{1, 2, "priority"}}});
  EXPECT_EQ(same_queue.counts().count("guarantee"), 1u);
  s.pending[0].queue = "b";
  s.running[0].demand.gpu_millis = 3000;  // now it borrows: a fair victim
  InvariantChecker fair(3);
  fair.Check(s, {.preempt = {{1, 2, "reclaim"}}});
  EXPECT_TRUE(fair.violations().empty()) << absl::StrJoin(fair.violations(), "\n");
}

// Backfill is a start behind the head in its own queue: it may run past the
// head's estimate only where the head still fits; another queue's start is
// not backfill.
TEST(CheckerTest, OnlyBackfillThatTakesTheHeadsRoomIsCaught) {
  Snapshot s;
  s.now = absl::UnixEpoch();
  s.capacity = {4000, 0, 4000};
  s.running.push_back({.seq = 1,
                       .queue = "a",
                       .demand = {1000, 0, 2000},
                       .placement = {{"w", {{"0", 1000}, {"1", 1000}}}},
                       .started = s.now,
                       .time_limit = absl::Hours(1)});
  s.pending.push_back(
      {.seq = 2, .queue = "b", .demand = {1000, 0, 4000}, .replicas = {{"w", 4000, ""}}});
  s.pending.push_back(
      {.seq = 3, .queue = "b", .demand = {1000, 0, 2000}, .replicas = {{"w", 2000, ""}}});
  Decision d;
  d.start.push_back({3, {{"w", {{"2", 1000}, {"3", 1000}}}}});
  d.waiting[2] = {.position = 1, .estimated_start = s.now + absl::Hours(1)};
  auto caught = [&](const Snapshot& snapshot) {
    InvariantChecker checker(3);
    checker.Check(snapshot, d);
    return checker.counts().count("reservation") > 0;
  };
  EXPECT_TRUE(caught(s));  // unbounded, behind the head: takes its room
  Snapshot bounded = s;
  bounded.pending[1].time_limit = absl::Minutes(30);  // ends before the head's start
  EXPECT_FALSE(caught(bounded));
  Snapshot other_queue = s;
  other_queue.pending[1].queue = "a";
  EXPECT_FALSE(caught(other_queue));
}

}  // namespace
}  // namespace dlp::server
