#include "kueue_virtual.h"

#include <cstdio>
#include <vector>

#include "absl/time/time.h"
#include "kueue_workload.h"
#include "server/scheduler/fair_share_history.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/simulator.h"

namespace dlp::bench {
namespace {

server::SimConfig KueueCluster(absl::Duration preempt_exempt_time) {
  server::SimConfig config;
  config.capacity = {int64_t{kCapacityCpus} * 1000, int64_t{1} << 50, 0};
  for (int q = 0; q < kCohorts * kQueuesPerCohort; ++q) {
    server::QueueConfig queue{.name = QueueName(q),
                              .cohort = CohortName(q),
                              .nominal = {int64_t{kNominalCpus} * 1000, 0, 0}};
    queue.borrowing_limit = server::ResourceVector{int64_t{kBorrowingLimitCpus} * 1000, 0, 0};
    config.queues.push_back(queue);
  }
  config.cycle = absl::ZeroDuration();  // decide on every arrival and end, at no cost
  // A victim's `sleep` ends at SIGTERM and keeps nothing: it starts over.
  config.grace = absl::ZeroDuration();
  config.checkpoint_interval = absl::Hours(1);
  config.fair_share_half_life = server::kDefaultFairShareHalfLife;  // as dlpd keeps it
  config.preempt_exempt_time = preempt_exempt_time;
  return config;
}

}  // namespace

int RunKueueBaselineInVirtualTime(double scale, absl::Duration preempt_exempt_time) {
  const std::vector<WorkloadClass> classes = KueueBaselineClasses();
  const std::vector<Arrival> arrivals = KueueBaselineArrivals(classes, scale);
  const absl::Time origin = absl::UnixEpoch();
  std::vector<server::SimJob> jobs;
  double cpu_seconds = 0;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    const WorkloadClass& k = classes[arrivals[i].klass];
    server::SimJob sim;
    sim.job.seq = static_cast<int64_t>(i) + 1;  // arrivals are in time order
    sim.job.tenant = "bench";
    sim.job.queue = QueueName(arrivals[i].queue);
    sim.job.priority = k.priority;
    sim.job.demand = {int64_t{k.cpus} * 1000, 0, 0};
    sim.job.submitted = origin + arrivals[i].at;
    sim.runtime = k.runtime;
    cpu_seconds += k.cpus * absl::ToDoubleSeconds(k.runtime);
    jobs.push_back(std::move(sim));
  }
  const server::SimResult r =
      server::Simulate(*server::CreateDefaultPolicy(), KueueCluster(preempt_exempt_time), std::move(jobs));

  std::vector<double> wait_sum(classes.size(), 0);
  std::vector<int> started(classes.size(), 0);
  for (const auto& [seq, wait] : r.first_wait) {
    const int k = arrivals[static_cast<size_t>(seq - 1)].klass;
    wait_sum[k] += absl::ToDoubleSeconds(wait);
    ++started[k];
  }
  const double wall = absl::ToDoubleSeconds(r.makespan);
  const double usage = wall > 0 ? cpu_seconds / (kCapacityCpus * wall) : 0;
  std::printf(
      "# Kueue scheduler baseline in virtual time: %zu jobs (scale %g), dlpd's policy on 30 "
      "queues with quotas (nominal %d, borrowing limit %d) in %d cohorts, %d CPUs; each job "
      "starts when the policy starts it, holds its CPUs for exactly its runtime, and a "
      "preempted one stops at once and runs its whole runtime again; preempt exempt time %s\n",
      arrivals.size(), scale, kNominalCpus, kBorrowingLimitCpus, kCohorts, kCapacityCpus,
      absl::FormatDuration(preempt_exempt_time).c_str());
  std::printf("jobs: %d completed, %zu started, %d preemptions\n", r.completed, r.first_wait.size(),
              r.preemptions);
  std::vector<double> admission_s(classes.size(), 0);
  for (size_t k = 0; k < classes.size(); ++k) {
    if (started[k] > 0) admission_s[k] = wait_sum[k] / started[k];
  }
  PrintAgainstKueue("policy alone", wall, usage, classes, admission_s);
  for (const std::string& v : r.violations) std::printf("violation: %s\n", v.c_str());
  return r.violations.empty() && r.first_wait.size() == arrivals.size() ? 0 : 1;
}

}  // namespace dlp::bench
