// A machine in virtual time driven by any SchedulingPolicy: jobs arrive at
// their submission times, run for their true runtimes, and the policy's
// decisions are applied as the controller would apply them (starts with
// their GPU placement; preemption: the victim is stopping for a grace
// period, then waits again with preemptions + 1 and its original seq, and
// resumes from its last checkpoint; a resize of an elastic job: it
// checkpoints, pauses for `grace` while its group re-forms, and goes on at
// the new size, its work done at a rate of size/count).
// Schedule runs after every event and every `cycle` while jobs wait. Every
// decision is checked against the invariants of sim_invariants.h and the
// run is measured (sim_metrics.h). Used by the invariant tests and by
// bench/sched/policy_sim. Not thread-safe; a pure function of its inputs
// except for the wall-clock latency of Schedule.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server/scheduler/policy.h"

namespace dlp::server {

struct SimJob {
  // What the policy sees; `job.submitted` is the arrival time.
  PendingJob job;
  // How long it truly runs (an elastic job: at its count). A preempted job
  // resumes with what is left (it checkpoints when told to stop); a job with
  // a shorter `time_limit` is stopped at its limit and counts as timed out.
  absl::Duration runtime = absl::Minutes(1);
};

struct SimConfig {
  ResourceVector capacity;
  std::vector<GpuDevice> devices;             // empty: "0".."n-1" from capacity
  std::vector<QueueConfig> queues;            // empty: implicit queues
  std::map<std::string, int> tenant_weights;  // fair-share weights; absent: 1
  // Schedule also runs this often while jobs wait; zero: only on events.
  absl::Duration cycle = absl::Minutes(1);
  absl::Duration grace = absl::Seconds(30);  // a victim's stopping time
  // How often a job checkpoints: a victim resumes from its last checkpoint
  // and does the work since again. Zero: it keeps all its work.
  absl::Duration checkpoint_interval = absl::ZeroDuration();
  absl::Duration window = absl::Hours(1);  // fair share is measured per window
  // The policy's fair-share history (fair_share_history.h), kept as dlpd keeps
  // it; zero: none.
  absl::Duration fair_share_half_life = absl::ZeroDuration();
  // The most times a job may be preempted for preemptors that have not
  // started yet (a preemption loop past that is a violation).
  int max_unanswered_preemptions = 3;
  // Snapshot::resize_interval: how often an elastic job may grow.
  absl::Duration resize_interval = kDefaultResizeInterval;
  absl::Duration preempt_exempt_time = absl::ZeroDuration();  // Snapshot's
  // Past this much virtual time the run stops; jobs never started starve.
  absl::Duration horizon = absl::InfiniteDuration();
  // A queue head's start later than the first estimate it was given as head
  // (plus one cycle) is a violation, not only counted. Sound only for traces
  // where nothing may overtake a head: one queue, one priority, time limits
  // no shorter than runtimes.
  bool strict_head_estimates = false;
};

// The policy's Schedule calls: wall-clock time, and the calling thread's CPU
// time (on a shared machine, the policy's own cost without the time other
// processes held the CPU).
struct LatencyStats {
  int calls = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
  int pending_at_p99 = 0;  // how many jobs waited in the call at the p99 rank
  int max_pending = 0;
  double cpu_p50_us = 0;
  double cpu_p99_us = 0;
};

// A tenant's dominant share over the run (sim_metrics.h).
struct TenantShare {
  int weight = 1;
  double share = 0;              // time-average of its dominant share
  double fair = 0;               // time-average of its weighted DRF share
  double max_deviation_pct = 0;  // its largest gap from fair in a window
  // The same over the windows that end by the last arrival (as utilisation,
  // the steady state: in the drain after it few jobs are left to choose from).
  double max_steady_deviation_pct = 0;
};

struct SimResult {
  int jobs = 0;
  int rejected = 0;   // refused by the policy's Admit
  int completed = 0;  // timed-out ones included
  int timed_out = 0;
  int preemptions = 0;
  int max_preemptions_of_a_job = 0;
  absl::Duration lost_work;  // run time the victims must do again (checkpoint_interval)
  int grows = 0;    // elastic jobs grown
  int shrinks = 0;  // elastic jobs shrunk (instead of preempting)
  // Queue heads that started later than the first estimate they had as head.
  int late_heads = 0;
  absl::Duration makespan;                    // first arrival to last completion
  // Each started job's wait from its arrival to its first start, by seq.
  std::map<int64_t, absl::Duration> first_wait;
  // Each completed job's completion time (arrival to end), by seq.
  std::map<int64_t, absl::Duration> completion;
  std::map<std::string, double> utilisation;  // "cpu", "memory", "gpu": 0..1
  double mean_jct_s = 0;
  double p95_jct_s = 0;
  // Per window, each tenant's dominant share against its weighted DRF share
  // (sim_metrics.h): Jain's index of actual/fair (mean over windows) and the
  // largest gap in percentage points of the machine.
  double jain = 1;
  double max_share_deviation_pct = 0;
  double max_steady_share_deviation_pct = 0;  // in the windows that end by the last arrival
  std::map<std::string, TenantShare> tenants;
  LatencyStats latency;
  // What broke, first ones in full ("capacity: ..."), and counts by invariant.
  std::vector<std::string> violations;
  std::map<std::string, int> violation_counts;
};

SimResult Simulate(const SchedulingPolicy& policy, const SimConfig& config,
                   std::vector<SimJob> jobs);

}  // namespace dlp::server
