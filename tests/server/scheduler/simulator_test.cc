// The simulator's mechanics and measures on traces small enough to work out
// by hand: preemption (stopping for the grace period, then waiting again with
// its seq and one more preemption, resuming with what it had left), time
// limits, utilisation, completion times and the fairness measures (weighted
// DRF with each tenant's demand).
#include "server/scheduler/simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "absl/strings/str_join.h"
#include "server/scheduler/policy.h"

namespace dlp::server {
namespace {

absl::Time At(absl::Duration d) { return absl::UnixEpoch() + d; }

SimJob Job(int64_t seq, std::string tenant, absl::Duration arrives, int64_t cpus,
           absl::Duration runtime, int priority = 0) {
  SimJob sim{.runtime = runtime};
  sim.job = {.seq = seq,
             .tenant = tenant,
             .queue = std::move(tenant),
             .priority = priority,
             .demand = {cpus * 1000, 0, 0},
             .submitted = At(arrives)};
  return sim;
}

SimConfig Cpus(int64_t n) {
  SimConfig config;
  config.capacity = {n * 1000, 0, 0};
  return config;
}

// For the fairness measure: hour windows, decisions only at events.
SimConfig HourWindows(int64_t cpus) {
  SimConfig config = Cpus(cpus);
  config.window = absl::Hours(1);
  config.cycle = absl::ZeroDuration();
  return config;
}

// PriorityFifo, and once: job 1 preempted for job 2 when both are there.
// Remembers what it saw of job 1.
class PreemptOnce : public SchedulingPolicy {
 public:
  Decision Schedule(const Snapshot& s) const override {
    Decision d = fifo_.Schedule(s);
    for (const RunningJob& r : s.running) {
      if (r.seq == 1) seen_.push_back({s.now, "running", r.stopping, 0});
    }
    for (const PendingJob& p : s.pending) {
      if (p.seq == 1) seen_.push_back({s.now, "pending", false, p.preemptions});
    }
    if (!done_ && s.pending.size() == 1 && s.pending[0].seq == 2 && !s.running.empty()) {
      d.preempt.push_back({1, 2, "Preempted by job 2"});
      done_ = true;
    }
    return d;
  }
  struct Seen {
    absl::Time at;
    std::string state;
    bool stopping;
    int preemptions;
  };
  mutable std::vector<Seen> seen_;

 private:
  PriorityFifoPolicy fifo_;
  mutable bool done_ = false;
};

// Records the fair-share history of every snapshot it is given.
class HistorySeen : public SchedulingPolicy {
 public:
  Decision Schedule(const Snapshot& s) const override {
    seen.push_back({s.now, s.fair_share_half_life, s.decayed_use});
    return fifo_.Schedule(s);
  }
  struct Seen {
    absl::Time now;
    absl::Duration half_life;
    std::map<std::string, ResourceVector> use;
  };
  mutable std::vector<Seen> seen;

 private:
  PriorityFifoPolicy fifo_;
};

// The history in virtual time is the one dlpd keeps (fair_share_history.h):
// job 1 holds 2 CPUs of queue a for an hour, one half-life, so when job 2
// arrives a's average is half of 2 CPUs.
TEST(SimulatorTest, FeedsTheFairShareHistoryInVirtualTime) {
  SimConfig config = Cpus(2);
  config.fair_share_half_life = absl::Hours(1);
  HistorySeen policy;
  Simulate(policy, config,
           {Job(1, "a", absl::ZeroDuration(), 2, absl::Hours(2)),
            Job(2, "b", absl::Hours(1), 1, absl::Minutes(10))});
  std::optional<HistorySeen::Seen> at_hour;
  for (const HistorySeen::Seen& s : policy.seen) {
    EXPECT_EQ(s.half_life, absl::Hours(1));
    if (s.now == At(absl::Hours(1))) at_hour = s;
  }
  ASSERT_TRUE(at_hour);
  EXPECT_EQ(at_hour->use.at("a").cpu_millis, 1000);
  EXPECT_FALSE(at_hour->use.contains("b"));
  // Without a half-life the policy is given none.
  config.fair_share_half_life = absl::ZeroDuration();
  HistorySeen off;
  Simulate(off, config,
           {Job(1, "a", absl::ZeroDuration(), 2, absl::Hours(2)),
            Job(2, "b", absl::Hours(1), 1, absl::Minutes(10))});
  for (const HistorySeen::Seen& s : off.seen) EXPECT_TRUE(s.use.empty());
}

// One CPU: job 1 (60 min) runs until job 2 (10 min, priority 5) arrives at
// 10 min and PreemptOnce preempts job 1 for it.
std::vector<SimJob> HourJobPreemptedAtTen() {
  return {Job(1, "a", absl::ZeroDuration(), 1, absl::Minutes(60)),
          Job(2, "a", absl::Minutes(10), 1, absl::Minutes(10), /*priority=*/5)};
}

TEST(SimulatorTest, AVictimStopsForItsGraceThenWaitsAgainAndResumes) {
  PreemptOnce policy;
  SimConfig config = Cpus(1);
  config.grace = absl::Seconds(30);
  config.cycle = absl::Seconds(10);  // to see the victim while it stops
  const SimResult r = Simulate(policy, config, HourJobPreemptedAtTen());
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.completed, 2);
  std::optional<absl::Time> stopping, waiting_again;
  for (const PreemptOnce::Seen& s : policy.seen_) {
    if (s.state == "running" && s.stopping && !stopping) stopping = s.at;
    if (s.state == "pending" && s.preemptions == 1 && !waiting_again) waiting_again = s.at;
  }
  EXPECT_EQ(stopping, At(absl::Seconds(610)));       // still holding its CPU
  EXPECT_EQ(waiting_again, At(absl::Seconds(630)));  // after the 30 s grace
  // Job 2 runs 10:30-20:30; job 1 resumes with its 50 minutes left.
  EXPECT_EQ(r.makespan, absl::Seconds(70 * 60 + 30));
  EXPECT_DOUBLE_EQ(r.mean_jct_s, (70.5 * 60 + 10.5 * 60) / 2);
  // Each job's wait until its first start; job 1's second start does not count.
  const std::map<int64_t, absl::Duration> first_wait = {{1, absl::ZeroDuration()},
                                                        {2, absl::Seconds(30)}};
  EXPECT_EQ(r.first_wait, first_wait);
}

TEST(SimulatorTest, AVictimResumesFromItsLastCheckpoint) {
  PreemptOnce policy;
  SimConfig config = Cpus(1);
  config.cycle = absl::Seconds(10);
  config.checkpoint_interval = absl::Minutes(4);
  const SimResult r = Simulate(policy, config, HourJobPreemptedAtTen());
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_EQ(r.preemptions, 1);
  // Preempted after 10 minutes of work, job 1 resumes from its checkpoint at
  // 8 min: 52 minutes left once job 2 has run (10:30-20:30).
  EXPECT_EQ(r.lost_work, absl::Minutes(2));
  EXPECT_EQ(r.makespan, absl::Seconds(72 * 60 + 30));
}

TEST(SimulatorTest, AJobPastItsTimeLimitIsStoppedThere) {
  PriorityFifoPolicy policy;
  SimJob job = Job(1, "a", absl::ZeroDuration(), 1, absl::Hours(2));
  job.job.time_limit = absl::Hours(1);
  const SimResult r = Simulate(policy, Cpus(2), {job});
  EXPECT_EQ(r.timed_out, 1);
  EXPECT_EQ(r.makespan, absl::Hours(1));
  EXPECT_DOUBLE_EQ(r.utilisation.at("cpu"), 0.5);
}

TEST(SimulatorTest, MeasuresCompletionTimesAndUtilisation) {
  PriorityFifoPolicy policy;
  SimConfig config = Cpus(2);
  config.cycle = absl::ZeroDuration();
  // 2 CPUs: job 1 (2 CPUs, 1 h) then job 2 (1 CPU, 1 h) waits for it.
  const SimResult r = Simulate(policy, config,
                               {Job(1, "a", absl::ZeroDuration(), 2, absl::Hours(1)),
                                Job(2, "a", absl::ZeroDuration(), 1, absl::Hours(1))});
  EXPECT_EQ(r.completed, 2);
  EXPECT_EQ(r.first_wait.at(2), absl::Hours(1));
  EXPECT_DOUBLE_EQ(r.mean_jct_s, 1.5 * 3600);
  EXPECT_DOUBLE_EQ(r.p95_jct_s, 2 * 3600);
  EXPECT_DOUBLE_EQ(r.utilisation.at("cpu"), 0.75);
  EXPECT_EQ(r.latency.calls, 2);  // at the arrivals and when job 1 ended
}

TEST(SimulatorTest, FairnessCountsWhatATenantHoldsWhileAnotherWaits) {
  PriorityFifoPolicy policy;
  const SimConfig config = HourWindows(2);
  // Tenant a holds the machine for 2 h while b waits the whole time: of what
  // is held, weighted DRF would give each half.
  const SimResult r = Simulate(policy, config,
                               {Job(1, "a", absl::ZeroDuration(), 2, absl::Hours(2)),
                                Job(2, "b", absl::ZeroDuration(), 2, absl::Hours(2))});
  EXPECT_NEAR(r.max_share_deviation_pct, 50, 1e-9);
  // Windows: 2 h of a alone holding (Jain 0.5 each), then 2 h of b alone (1).
  EXPECT_NEAR(r.jain, 0.75, 1e-9);
  // One tenant alone is always fair.
  const SimResult alone = Simulate(policy, config,
                                   {Job(1, "a", absl::ZeroDuration(), 2, absl::Hours(2)),
                                    Job(2, "a", absl::ZeroDuration(), 2, absl::Hours(2))});
  EXPECT_NEAR(alone.max_share_deviation_pct, 0, 1e-9);
  EXPECT_NEAR(alone.jain, 1, 1e-9);
}

TEST(SimulatorTest, AWaitingTenantIsOwedNoMoreThanItAsksFor) {
  PriorityFifoPolicy policy;
  const SimConfig config = HourWindows(4);
  // Tenant a holds all 4 CPUs for 2 h while b waits for a 1-CPU job: DRF
  // owes b its demand, a quarter, not half the machine.
  const SimResult r = Simulate(policy, config,
                               {Job(1, "a", absl::ZeroDuration(), 4, absl::Hours(2)),
                                Job(2, "b", absl::ZeroDuration(), 1, absl::Hours(1))});
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_NEAR(r.max_share_deviation_pct, 25, 1e-9);
  ASSERT_TRUE(r.tenants.contains("b"));
  // Over the 3 h: b is owed 1/4 for 2 h waiting, then holds its 1/4.
  EXPECT_NEAR(r.tenants.at("b").fair, 0.25, 1e-9);
  EXPECT_NEAR(r.tenants.at("a").fair, 1.5 / 3, 1e-9);
}

TEST(SimulatorTest, TheSteadyStateEndsWithTheLastArrival) {
  PriorityFifoPolicy policy;
  const SimConfig config = HourWindows(4);
  // a holds the machine for 2 h. In the first hour b waits for 1 CPU (owed
  // a quarter); at 1 h, the last arrival, b asks for 4 more: in the second
  // hour it is owed half. Then b alone.
  const SimResult r = Simulate(policy, config,
                               {Job(1, "a", absl::ZeroDuration(), 4, absl::Hours(2)),
                                Job(2, "b", absl::ZeroDuration(), 1, absl::Hours(1)),
                                Job(3, "b", absl::Hours(1), 4, absl::Hours(1))});
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_NEAR(r.max_share_deviation_pct, 50, 1e-9);
  EXPECT_NEAR(r.max_steady_share_deviation_pct, 25, 1e-9);
  ASSERT_TRUE(r.tenants.contains("b"));
  EXPECT_NEAR(r.tenants.at("b").max_steady_deviation_pct, 25, 1e-9);
  EXPECT_NEAR(r.tenants.at("b").max_deviation_pct, 50, 1e-9);
}

TEST(SimulatorTest, WeightsSetTheFairShare) {
  PriorityFifoPolicy policy;
  SimConfig config = Cpus(4);
  config.window = absl::Hours(1);
  config.tenant_weights = {{"a", 3}, {"b", 1}};
  // For 2 h a holds 3 CPUs and b 1 while both wait for more: 3:1 is their
  // weighted share. Then a holds all 4 for 1 h while b waits: 25 points above
  // its share of 3/4 (with equal weights it would be 50). Then b alone.
  const SimResult r = Simulate(policy, config,
                               {Job(1, "a", absl::ZeroDuration(), 3, absl::Hours(2)),
                                Job(2, "b", absl::ZeroDuration(), 1, absl::Hours(2)),
                                Job(3, "a", absl::ZeroDuration(), 4, absl::Hours(1)),
                                Job(4, "b", absl::ZeroDuration(), 4, absl::Hours(1))});
  EXPECT_TRUE(r.violations.empty()) << absl::StrJoin(r.violations, "\n");
  EXPECT_NEAR(r.max_share_deviation_pct, 25, 1e-9);
  // Jain per window: 1, 1, (4/3)^2 / (2 (4/3)^2) = 0.5, 1.
  EXPECT_NEAR(r.jain, 0.875, 1e-9);
  // Over the 4 h: a holds 3/4, 3/4, 1, 0 of the machine, fair 3/4, 3/4, 3/4, 0.
  ASSERT_TRUE(r.tenants.contains("a"));
  EXPECT_EQ(r.tenants.at("a").weight, 3);
  EXPECT_NEAR(r.tenants.at("a").share, 2.5 / 4, 1e-9);
  EXPECT_NEAR(r.tenants.at("a").fair, 2.25 / 4, 1e-9);
  EXPECT_NEAR(r.tenants.at("b").fair, 1.75 / 4, 1e-9);
  EXPECT_NEAR(r.tenants.at("b").max_deviation_pct, 25, 1e-9);
}

}  // namespace
}  // namespace dlp::server
