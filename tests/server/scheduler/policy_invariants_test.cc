// The policies over long random traces in virtual time (simulator.h): queues
// in a cohort with quotas, tenants, priorities, gangs, fractional and typed
// GPUs, time limits (some too short), jobs that may not be preempted. Every
// decision is checked (sim_invariants.h): never over capacity, never a
// partial gang, no job both started and preempted, guarantees honoured,
// backfill never breaks a head's reservation, bounded preemptions, no
// starvation. The seeds are fixed and printed. A sound toy policy that
// preempts takes the simulator through preemptions too; sim_invariants_test
// shows that each check can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/simulator.h"

namespace dlp::server {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

ResourceVector Res(int64_t cpus, int64_t memory_gi, int64_t gpu_millis) {
  return {cpus * 1000, memory_gi * kGi, gpu_millis};
}

// 16 GPUs, 8 H100 ("0".."7") and 8 A100 ("8".."15"); three queues of one
// cohort whose nominal quotas add up to the machine.
SimConfig Cluster() {
  SimConfig config;
  config.capacity = Res(128, 1024, 16000);
  config.capacity.gpu_flavours = {{"h100", 8000}, {"a100", 8000}};
  for (int i = 0; i < 16; ++i) {
    const std::string name = i < 8 ? "NVIDIA H100" : "NVIDIA A100";
    config.devices.push_back({.id = absl::StrCat(i),
                              .uuid = absl::StrCat("GPU-", i),
                              .name = name,
                              .flavour = FlavourOf(name),
                              .memory_bytes = 80 * kGi});
  }
  QueueConfig vision{.name = "vision", .cohort = "lab", .nominal = Res(48, 384, 6000)};
  vision.weight = 2;
  QueueConfig nlp{.name = "nlp", .cohort = "lab", .nominal = Res(48, 384, 6000)};
  nlp.borrowing_limit = Res(32, 256, 4000);
  QueueConfig batch{.name = "batch", .cohort = "lab", .nominal = Res(32, 256, 4000)};
  batch.lending_limit = Res(16, 128, 2000);
  config.queues = {vision, nlp, batch};
  config.tenant_weights = {{"alice", 2}, {"bob", 1}, {"carol", 1}};
  config.cycle = absl::Minutes(1);
  config.grace = absl::Seconds(30);
  config.window = absl::Hours(2);
  return config;
}

// `n` jobs, Poisson arrivals at about 1.3 times what the machine can run.
std::vector<SimJob> RandomTrace(uint32_t seed, int n, const SimConfig& config) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto pick = [&](std::initializer_list<int64_t> values) {
    std::vector<int64_t> v(values);
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  std::lognormal_distribution<double> minutes(std::log(20.0), 1.0);
  std::exponential_distribution<double> gap(1.0 / 90.0);  // seconds
  const std::vector<std::pair<std::string, std::string>> who = {
      {"alice", "vision"}, {"alice", "vision"}, {"bob", "nlp"}, {"bob", "nlp"}, {"carol", "batch"}};
  absl::Time at = absl::FromUnixSeconds(1'700'000'000);
  std::vector<SimJob> jobs;
  for (int i = 0; i < n; ++i) {
    at += absl::Seconds(gap(rng));
    const auto& [tenant, queue] = who[rng() % who.size()];
    int64_t nominal_gpu = 0;
    for (const QueueConfig& q : config.queues) {
      if (q.name == queue) nominal_gpu = q.nominal.gpu_millis;
    }
    SimJob sim;
    PendingJob& job = sim.job;
    job.seq = i + 1;
    job.tenant = tenant;
    job.queue = queue;
    job.priority = static_cast<int>(pick({0, 0, 0, 5, 10, 100}));
    job.submitted = at;
    const int64_t replicas = pick({1, 1, 1, 2, 4});
    int64_t gpu =
        replicas == 1 ? pick({0, 250, 500, 1000, 1000, 2000, 4000}) : pick({0, 1000, 1000, 2000});
    while (gpu * replicas > nominal_gpu) gpu /= 2;  // always within its own quota
    if (gpu < 1000 && replicas > 1) gpu = 0;
    const std::string type = gpu > 0 && rng() % 6 == 0 ? (rng() % 2 ? "h100" : "a100") : "";
    for (int64_t r = 0; r < replicas; ++r) {
      job.demand += Res(pick({1, 2, 4, 8}), pick({2, 8, 32}), gpu);
      if (gpu > 0) job.replicas.push_back({absl::StrCat("worker-", r), gpu, type});
    }
    if (!type.empty()) job.demand.gpu_flavours[type] = job.demand.gpu_millis;
    sim.runtime = absl::Seconds(60 + 60 * minutes(rng));
    const double limit = uniform(0, 1);
    if (limit < 0.7) {
      job.time_limit = absl::Seconds(uniform(1.2, 3) * absl::ToDoubleSeconds(sim.runtime));
    } else if (limit < 0.85) {
      job.time_limit = absl::Seconds(uniform(0.5, 0.9) * absl::ToDoubleSeconds(sim.runtime));
    }
    job.preemptible = rng() % 7 != 0;
    jobs.push_back(std::move(sim));
  }
  return jobs;
}

std::string Describe(const SimResult& r) {
  return absl::StrCat(r.jobs, " jobs, ", r.rejected, " refused, ", r.completed, " completed (",
                      r.timed_out, " timed out), ", r.preemptions, " preemptions, gpu use ",
                      static_cast<int>(100 * r.utilisation.at("gpu")), "%, late heads ",
                      r.late_heads, r.violations.empty() ? "" : "; violations:\n  ",
                      absl::StrJoin(r.violations, "\n  "));
}

// PriorityFifo plus priority preemption within a queue, a sound toy that
// takes the simulator through preemptions at scale: a queue head that does
// not fit preempts the lowest-priority, most recently started preemptible
// jobs of its queue below its priority, just enough that its demand would
// fit, while nothing of its queue is stopping.
class PreemptingToyPolicy : public SchedulingPolicy {
 public:
  Decision Schedule(const Snapshot& s) const override {
    Decision d = fifo_.Schedule(s);
    std::set<int64_t> started;
    for (const StartDecision& start : d.start) started.insert(start.seq);
    ResourceVector free = s.capacity;
    std::set<std::string> stopping;
    for (const RunningJob& r : s.running) {
      free -= r.demand;
      if (r.stopping) stopping.insert(r.queue);
    }
    std::vector<const PendingJob*> order;
    for (const PendingJob& p : s.pending) {
      if (started.contains(p.seq)) {
        free -= p.demand;
      } else {
        order.push_back(&p);
      }
    }
    std::stable_sort(order.begin(), order.end(), [](const PendingJob* a, const PendingJob* b) {
      return a->priority != b->priority ? a->priority > b->priority : a->seq < b->seq;
    });
    std::set<std::string> seen;
    for (const PendingJob* head : order) {
      if (!seen.insert(head->queue).second || stopping.contains(head->queue)) continue;
      std::vector<const RunningJob*> victims;
      for (const RunningJob& r : s.running) {
        if (r.queue == head->queue && !r.stopping && r.preemptible && r.priority < head->priority) {
          victims.push_back(&r);
        }
      }
      std::sort(victims.begin(), victims.end(), [](const RunningJob* a, const RunningJob* b) {
        return a->priority != b->priority ? a->priority < b->priority : a->started > b->started;
      });
      ResourceVector room = free;
      size_t needed = 0;
      while (!Fits(head->demand, room) && needed < victims.size())
        room += victims[needed++]->demand;
      if (needed == 0 || !Fits(head->demand, room)) continue;
      for (size_t i = 0; i < needed; ++i) {
        d.preempt.push_back({victims[i]->seq, head->seq, "priority"});
      }
      room -= head->demand;
      free = room;
    }
    return d;
  }

 private:
  static bool Fits(const ResourceVector& demand, const ResourceVector& free) {
    return demand.cpu_millis <= free.cpu_millis && demand.memory_bytes <= free.memory_bytes &&
           demand.gpu_millis <= free.gpu_millis;
  }
  PriorityFifoPolicy fifo_;
};

struct PolicyCase {
  std::string name;
  std::function<std::unique_ptr<SchedulingPolicy>()> make;
  bool preempts = false;  // its traces must show preemptions
  // The fair-share history the simulator keeps for it (zero: none).
  absl::Duration half_life = absl::ZeroDuration();
};

void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.name; }

class PolicyInvariantsTest : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(PolicyInvariantsTest, LongRandomTracesKeepEveryInvariant) {
  const std::unique_ptr<SchedulingPolicy> policy = GetParam().make();
  SimConfig config = Cluster();
  config.fair_share_half_life = GetParam().half_life;
  int preemptions = 0;
  for (uint32_t seed : {1u, 7u, 20261201u}) {
    const SimResult r = Simulate(*policy, config, RandomTrace(seed, 400, config));
    preemptions += r.preemptions;
    std::printf("[%s] seed %u: %s\n", GetParam().name.c_str(), seed, Describe(r).c_str());
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    EXPECT_TRUE(r.violations.empty()) << Describe(r);
    // Every job fits its own queue's quota: a sound policy refuses few.
    EXPECT_LE(r.rejected, r.jobs / 5) << Describe(r);
    EXPECT_EQ(r.completed, r.jobs - r.rejected) << Describe(r);  // the trace drains
  }
  if (GetParam().preempts) {
    EXPECT_GT(preemptions, 0);
  }
}

// One queue, one priority, time limits no shorter than runtimes: nothing may
// overtake a queue head, so a head that got an estimated start must start by
// then (backfill never delays it). Vacuous for a policy that gives none.
TEST_P(PolicyInvariantsTest, HeadsStartByTheirEstimateWhenNothingMayOvertake) {
  const std::unique_ptr<SchedulingPolicy> policy = GetParam().make();
  SimConfig config = Cluster();
  config.queues.clear();
  config.strict_head_estimates = true;
  config.fair_share_half_life = GetParam().half_life;
  for (uint32_t seed : {3u, 11u}) {
    std::vector<SimJob> jobs = RandomTrace(seed, 300, Cluster());
    for (SimJob& j : jobs) {
      j.job.queue = "default";
      j.job.priority = 0;
      j.job.time_limit = j.runtime * 2;
    }
    const SimResult r = Simulate(*policy, config, std::move(jobs));
    std::printf("[%s] one queue, seed %u: %s\n", GetParam().name.c_str(), seed,
                Describe(r).c_str());
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    EXPECT_TRUE(r.violations.empty()) << Describe(r);
    EXPECT_EQ(r.completed, r.jobs - r.rejected) << Describe(r);
  }
}

// A third of the multi-replica jobs elastic (minCount = count/4, at least
// one; one-CPU, no-GPU or one-GPU replicas), over long traces: sizes stay in
// range, gangs whole at every size, never over capacity, no resize sooner
// than the interval but a shrink for a job that could preempt (no resize
// loop), and the trace drains.
std::vector<SimJob> WithElasticJobs(std::vector<SimJob> jobs, uint32_t seed) {
  std::mt19937_64 rng(seed);
  for (SimJob& sim : jobs) {
    PendingJob& job = sim.job;
    const int count = std::max<int>(1, static_cast<int>(job.replicas.size()));
    if (count < 2 || rng() % 3 != 0) continue;
    const int64_t gpu = job.replicas[0].gpu_millis;
    job.elastic = {.role = "worker",
                   .min = std::max(1, count / 4),
                   .max = count,
                   .per_replica = Res(1, 2, gpu),
                   .gpu_millis = gpu,
                   .gpu_type = job.replicas[0].gpu_type};
    if (!job.elastic.gpu_type.empty()) {
      job.elastic.per_replica.gpu_flavours[job.elastic.gpu_type] = gpu;
    }
    job.demand = {};
    job.replicas.clear();
    for (int r = 0; r < count; ++r) {
      job.demand += job.elastic.per_replica;
      job.replicas.push_back({absl::StrCat("worker-", r), gpu, job.elastic.gpu_type});
    }
  }
  return jobs;
}

TEST_P(PolicyInvariantsTest, ElasticJobsKeepEveryInvariant) {
  const std::unique_ptr<SchedulingPolicy> policy = GetParam().make();
  SimConfig config = Cluster();
  config.fair_share_half_life = GetParam().half_life;
  config.resize_interval = absl::Minutes(2);
  int grows = 0, shrinks = 0;
  for (uint32_t seed : {5u, 20261206u, 42u}) {
    const SimResult r =
        Simulate(*policy, config, WithElasticJobs(RandomTrace(seed, 500, config), seed));
    grows += r.grows;
    shrinks += r.shrinks;
    std::printf("[%s] elastic, seed %u: %s; %d grows, %d shrinks\n", GetParam().name.c_str(),
                seed, Describe(r).c_str(), r.grows, r.shrinks);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    EXPECT_TRUE(r.violations.empty()) << Describe(r);
    EXPECT_EQ(r.completed, r.jobs - r.rejected) << Describe(r);
  }
  if (GetParam().name.starts_with("default")) {
    // The traces take the policy through grows and shrinks.
    EXPECT_GT(grows, 0);
    EXPECT_GT(shrinks, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Policies, PolicyInvariantsTest,
    ::testing::Values(
        PolicyCase{"default", [] { return CreateDefaultPolicy(); }},
        PolicyCase{"default_with_history", [] { return CreateDefaultPolicy(); }, false,
                   absl::Minutes(30)},
        PolicyCase{"priority_fifo", [] { return std::make_unique<PriorityFifoPolicy>(); }},
        PolicyCase{"preempting_toy", [] { return std::make_unique<PreemptingToyPolicy>(); }, true}),
    [](const ::testing::TestParamInfo<PolicyCase>& info) { return info.param.name; });

}  // namespace
}  // namespace dlp::server
