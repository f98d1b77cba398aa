// dlp-bench-policy-sim: scheduling policies side by side in virtual time on
// a simulated 256-GPU cluster (workload.h), through the simulator that the
// invariant tests use (server/scheduler/simulator.h). For each policy it
// prints utilisation, job completion times, fairness against weighted DRF,
// preemptions, decision latency and invariant violations; then the decision
// latency with a fixed number of jobs waiting. Exits 1 on any violation.
//
//   dlp-bench-policy-sim [--seed=N] [--jobs=N] [--load=X] [--window-hours=H]
//                        [--max-gang-gpus=N]   (the largest gang in the mix, 64)
//                        [--checkpoint-minutes=M]   (a victim redoes the work since its
//                                 last checkpoint; 0: it loses none)
//                        [--policies=fifo,priority_fifo,default]  (also drf_first,
//                                 drf_first_any: drf_first_policy.h)
//                        [--latency-pending=N] [--latency-calls=N]
//                        [--half-life=DURATION]   (fair-share history; 0: off)
//                        [--elastic-share=X]   (X of the jobs of 4+ GPUs elastic, minCount =
//                                 count/4: each policy runs the trace twice, NAME with every
//                                 job rigid and NAME/elastic; 0: once, as generated)
//                        [--resize-minutes=M]   (how often an elastic job may grow, 1)
//                        [--preempt-exempt-minutes=M]   (a job younger than this is not
//                                 preempted, as dlpd --preempt-exempt-time; 0)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "drf_first_policy.h"
#include "server/scheduler/fair_share_history.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/policy.h"
#include "server/scheduler/simulator.h"
#include "strict_fifo_policy.h"
#include "workload.h"

namespace dlp::bench {
namespace {

struct Options {
  uint64_t seed = 20261201;
  int jobs = 10000;
  double load = 1.1;
  double window_hours = 6;
  int max_gang_gpus = 64;
  double checkpoint_minutes = 0;
  std::string policies = "fifo,priority_fifo,default";
  int latency_pending = 10000;
  int latency_calls = 200;
  std::string half_life;  // empty: dlpd's default
  double elastic_share = 0;
  double resize_minutes = 1;
  double preempt_exempt_minutes = 0;
};

bool Parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::pair<std::string, std::string> kv = absl::StrSplit(argv[i], absl::MaxSplits('=', 1));
    const std::string& v = kv.second;
    bool ok = true;
    if (kv.first == "--seed")
      ok = absl::SimpleAtoi(v, &o.seed);
    else if (kv.first == "--jobs")
      ok = absl::SimpleAtoi(v, &o.jobs);
    else if (kv.first == "--load")
      ok = absl::SimpleAtod(v, &o.load);
    else if (kv.first == "--window-hours")
      ok = absl::SimpleAtod(v, &o.window_hours);
    else if (kv.first == "--max-gang-gpus")
      ok = absl::SimpleAtoi(v, &o.max_gang_gpus) && o.max_gang_gpus >= 1;
    else if (kv.first == "--checkpoint-minutes")
      ok = absl::SimpleAtod(v, &o.checkpoint_minutes) && o.checkpoint_minutes >= 0 &&
           o.checkpoint_minutes <= 7 * 24 * 60;
    else if (kv.first == "--policies")
      o.policies = v;
    else if (kv.first == "--latency-pending")
      ok = absl::SimpleAtoi(v, &o.latency_pending);
    else if (kv.first == "--latency-calls")
      ok = absl::SimpleAtoi(v, &o.latency_calls);
    else if (kv.first == "--elastic-share")
      ok = absl::SimpleAtod(v, &o.elastic_share) && o.elastic_share >= 0 && o.elastic_share <= 1;
    else if (kv.first == "--resize-minutes")
      ok = absl::SimpleAtod(v, &o.resize_minutes) && o.resize_minutes >= 0 &&
           o.resize_minutes <= 24 * 60;
    else if (kv.first == "--preempt-exempt-minutes")
      ok = absl::SimpleAtod(v, &o.preempt_exempt_minutes) && o.preempt_exempt_minutes >= 0 &&
           o.preempt_exempt_minutes <= 24 * 60;
    else if (kv.first == "--half-life") {
      o.half_life = v;
      ok = server::ParseHalfLife(v).ok();
    } else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "dlp-bench-policy-sim: bad argument %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

std::unique_ptr<server::SchedulingPolicy> Make(const std::string& name) {
  if (name == "fifo") return std::make_unique<StrictFifoPolicy>();
  if (name == "priority_fifo") return std::make_unique<server::PriorityFifoPolicy>();
  if (name == "default") return server::CreateDefaultPolicy();
  // Yardsticks for the fairness measure (drf_first_policy.h), not dlpd's.
  if (name == "drf_first") return std::make_unique<DrfFirstPolicy>(/*keep_guarantees=*/true);
  if (name == "drf_first_any") return std::make_unique<DrfFirstPolicy>(false);
  return nullptr;
}

// `pending` jobs waiting on a machine filled by running jobs: the snapshot of
// a busy moment, for the latency with that many jobs waiting. With a
// half-life, each queue's history is what it runs now (a steady state).
server::Snapshot BusySnapshot(uint64_t seed, int pending, absl::Duration half_life) {
  server::Snapshot s;
  const server::SimConfig config = Cluster();
  s.capacity = config.capacity;
  s.queues = config.queues;
  std::vector<server::SimJob> jobs = Workload(seed, pending + 2000, 1.0);
  s.now = jobs.back().job.submitted;
  server::DeviceUse use;
  const std::vector<server::GpuDevice> devices = server::DevicesOf(s);
  server::ResourceVector used;
  for (server::SimJob& sim : jobs) {
    server::PendingJob& job = sim.job;
    server::ResourceVector after = used;
    after += job.demand;
    if (used.gpu_millis < s.capacity.gpu_millis * 97 / 100 &&
        after.gpu_millis <= s.capacity.gpu_millis) {
      if (auto placement = server::PlaceGpus(job.replicas, devices, use)) {
        used = after;
        s.running.push_back({.seq = job.seq,
                             .tenant = job.tenant,
                             .queue = job.queue,
                             .priority = job.priority,
                             .demand = job.demand,
                             .placement = std::move(*placement),
                             .started = s.now - sim.runtime / 2,
                             .time_limit = job.time_limit,
                             .preemptible = job.preemptible});
        continue;
      }
    }
    if (static_cast<int>(s.pending.size()) == pending) break;
    s.pending.push_back(std::move(job));
  }
  if (half_life > absl::ZeroDuration()) {
    s.fair_share_half_life = half_life;
    for (const server::RunningJob& r : s.running) s.decayed_use[r.queue] += r.demand;
  }
  return s;
}

double Hours(double seconds) { return seconds / 3600; }

// The mean completion time of the elastic jobs and of the others, in the
// elastic run and in the rigid one: who gains, who pays.
void PrintByClass(const std::string& name, const std::vector<server::SimJob>& trace,
                  const server::SimResult& elastic, const server::SimResult& rigid) {
  double sum[2][2] = {}, n[2] = {};
  for (const server::SimJob& sim : trace) {
    const int k = sim.job.elastic.elastic() ? 1 : 0;
    auto e = elastic.completion.find(sim.job.seq);
    auto r = rigid.completion.find(sim.job.seq);
    if (e == elastic.completion.end() || r == rigid.completion.end()) continue;
    sum[k][0] += absl::ToDoubleHours(e->second);
    sum[k][1] += absl::ToDoubleHours(r->second);
    ++n[k];
  }
  for (int k : {1, 0}) {
    if (n[k] == 0) continue;
    std::printf("#   %s: %5.0f %s jobs, mean JCT %.2f h (rigid run %.2f h)\n", name.c_str(), n[k],
                k ? "elastic" : "other", sum[k][0] / n[k], sum[k][1] / n[k]);
  }
}

// This thread's CPU time: on a shared machine the policy's own cost, apart
// from the time other processes took the CPU.
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int Main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, o)) return 2;
  server::SimConfig config = Cluster();
  config.window = absl::Seconds(o.window_hours * 3600);
  config.checkpoint_interval = absl::Seconds(o.checkpoint_minutes * 60);
  config.fair_share_half_life =
      o.half_life.empty() ? server::kDefaultFairShareHalfLife : *server::ParseHalfLife(o.half_life);
  config.resize_interval = absl::Seconds(o.resize_minutes * 60);
  config.preempt_exempt_time = absl::Seconds(o.preempt_exempt_minutes * 60);
  const std::vector<server::SimJob> jobs = Workload(o.seed, o.jobs, o.load, o.max_gang_gpus);
  // Each trace the policies run: as generated, or rigid and elastic.
  std::vector<std::pair<std::string, std::vector<server::SimJob>>> traces;
  if (o.elastic_share > 0) {
    traces.emplace_back("", WithElasticShare(jobs, o.elastic_share, o.seed, false));
    traces.emplace_back("/elastic", WithElasticShare(jobs, o.elastic_share, o.seed, true));
  } else {
    traces.emplace_back("", jobs);
  }
  std::printf(
      "# dlp-bench-policy-sim: seed %llu, %d jobs, 256 GPUs, 4096 CPUs, 32Ti; "
      "gangs of up to %d GPUs; offered load %.2f; fairness windows of %gh; cycle 1 min, "
      "grace 30 s; checkpoints %s; fair-share half-life %s; elastic share %g of 4+ GPU jobs; "
      "preempt exempt time %g min\n",
      static_cast<unsigned long long>(o.seed), o.jobs, o.max_gang_gpus, o.load, o.window_hours,
      o.checkpoint_minutes > 0 ? absl::StrFormat("every %g min", o.checkpoint_minutes).c_str()
                               : "perfect",
      config.fair_share_half_life > absl::ZeroDuration()
          ? absl::FormatDuration(config.fair_share_half_life).c_str()
          : "0 (off)",
      o.elastic_share, o.preempt_exempt_minutes);
  std::printf("# %-14s %7s %6s %6s %8s %8s %6s %7s %7s %7s %7s %7s %8s %8s %8s %5s %6s\n", "policy",
              "refused", "gpu%", "cpu%", "jct_h", "p95jct_h", "jain", "maxdev%", "steady%",
              "preempt", "lost_h", "p50_us", "p99_us", "pend@p99", "cpu99_us", "viol", "wall_s");
  bool wrong = false;
  std::vector<std::string> tenant_lines;
  std::vector<std::string> names = absl::StrSplit(o.policies, ',');
  for (const std::string& policy_name : names) {
    std::unique_ptr<server::SchedulingPolicy> policy = Make(policy_name);
    if (!policy) {
      std::fprintf(stderr, "dlp-bench-policy-sim: no policy %s\n", policy_name.c_str());
      return 2;
    }
    std::unique_ptr<server::SimResult> rigid;
    for (const auto& [suffix, trace] : traces) {
    const std::string name = policy_name + suffix;
    const auto t0 = std::chrono::steady_clock::now();
    const server::SimResult r = Simulate(*policy, config, trace);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int violations = 0;
    for (const auto& [kind, n] : r.violation_counts) violations += n;
    std::printf(
        "  %-14s %7d %6.1f %6.1f %8.2f %8.2f %6.3f %7.1f %7.1f %7d %7.0f %7.0f %8.0f %8d %8.0f "
        "%5d %6.1f\n",
        name.c_str(), r.rejected, 100 * r.utilisation.at("gpu"), 100 * r.utilisation.at("cpu"),
        Hours(r.mean_jct_s), Hours(r.p95_jct_s), r.jain, r.max_share_deviation_pct,
        r.max_steady_share_deviation_pct, r.preemptions, absl::ToDoubleHours(r.lost_work),
        r.latency.p50_us, r.latency.p99_us, r.latency.pending_at_p99, r.latency.cpu_p99_us,
        violations, wall);
    for (const auto& [tenant, t] : r.tenants) {
      tenant_lines.push_back(absl::StrFormat("  %-14s %-8s %6d %8.1f %8.1f %9.1f %9.1f", name,
                                             tenant, t.weight, 100 * t.share, 100 * t.fair,
                                             t.max_deviation_pct, t.max_steady_deviation_pct));
    }
    if (o.elastic_share > 0) {
      std::printf("#   %s: %d grows, %d shrinks, %d timed out\n", name.c_str(), r.grows,
                  r.shrinks, r.timed_out);
      if (rigid) PrintByClass(name, trace, r, *rigid);
    }
    rigid = std::make_unique<server::SimResult>(r);
    for (const std::string& v : r.violations) std::printf("#   %s: %s\n", name.c_str(), v.c_str());
    wrong = wrong || violations > 0;
    }
  }

  std::printf("\n# dominant shares over the run, %% of the machine\n");
  std::printf("# %-14s %-8s %6s %8s %8s %9s %9s\n", "policy", "tenant", "weight", "share%", "fair%",
              "maxdev%", "steady%");
  for (const std::string& line : tenant_lines) std::printf("%s\n", line.c_str());

  const server::Snapshot busy =
      BusySnapshot(o.seed + 1, o.latency_pending, config.fair_share_half_life);
  std::printf("\n# decision latency: %zu pending, %zu running, %d calls each\n",
              busy.pending.size(), busy.running.size(), o.latency_calls);
  std::printf("# %-14s %9s %9s %9s %9s %9s %7s\n", "policy", "p50_ms", "p99_ms", "max_ms",
              "cpu_p50", "cpu_p99", "starts");
  for (const std::string& name : names) {
    std::unique_ptr<server::SchedulingPolicy> policy = Make(name);
    std::vector<double> wall_ms, cpu_ms;
    size_t starts = 0;
    for (int i = 0; i < o.latency_calls; ++i) {
      const double cpu0 = ThreadCpuMs();
      const auto t0 = std::chrono::steady_clock::now();
      server::Decision d = policy->Schedule(busy);
      wall_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      cpu_ms.push_back(ThreadCpuMs() - cpu0);
      starts = d.start.size();
    }
    std::sort(wall_ms.begin(), wall_ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
    auto at = [](const std::vector<double>& v, double p) {
      return v[std::min(v.size() - 1, static_cast<size_t>(std::ceil(p * v.size())) - 1)];
    };
    std::printf("  %-14s %9.2f %9.2f %9.2f %9.2f %9.2f %7zu\n", name.c_str(), at(wall_ms, 0.5),
                at(wall_ms, 0.99), wall_ms.back(), at(cpu_ms, 0.5), at(cpu_ms, 0.99), starts);
  }
  return wrong ? 1 : 0;
}

}  // namespace
}  // namespace dlp::bench

int main(int argc, char** argv) { return dlp::bench::Main(argc, argv); }
