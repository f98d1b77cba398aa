#include "server/monitor/usage_sampler.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "server/monitor/proc_stats.h"
#include "server/support/thread_guard.h"

namespace dlp::server {

UsageSampler::UsageSampler(std::function<std::vector<SampledJob>()> running,
                           absl::Duration interval,
                           size_t keep_per_replica)
    : running_(std::move(running)), interval_(interval), keep_(keep_per_replica) {}

UsageSampler::~UsageSampler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void UsageSampler::Start() {
  thread_ = GuardedThread("usage sampler", [this] { Loop(); });
}

void UsageSampler::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    RunGuarded("usage sampler: sampling round", [this] { SampleOnce(); });
    lock.lock();
    wake_.wait_for(lock, absl::ToChronoMilliseconds(interval_), [this] { return stop_; });
  }
}

void UsageSampler::SampleOnce() {
  const std::vector<SampledJob> jobs = running_();
  if (jobs.empty()) return;
  const absl::Time now = absl::Now();
  std::map<int64_t, GroupStats> groups = ScanProcessGroups();
  std::map<int, GpuProcessUse> gpu = GpuUseByPid();
  std::map<std::string, std::vector<ReplicaUsage>> round;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<int64_t, Cpu> seen;
    std::map<std::pair<std::string, std::string>, std::deque<ReplicaUsage>> kept;
    for (const SampledJob& sampled : jobs) {
      const Job& job = sampled.job;
      const std::set<int>& processes = sampled.processes;
      for (const JobReplica& r : job.replicas) {
        auto key = std::make_pair(job.id, r.name);
        auto old = history_.find(key);
        std::deque<ReplicaUsage> hist =
            old != history_.end() ? std::move(old->second) : std::deque<ReplicaUsage>{};
        auto g = r.pid > 0 ? groups.find(r.pid) : groups.end();
        if (g != groups.end() &&
            !std::all_of(g->second.pids.begin(), g->second.pids.end(),
                         [&processes](int pid) { return processes.contains(pid); })) {
          g = groups.end();  // not the job's group, whatever its status file says
        }
        if (r.state == JobState::kRunning && g != groups.end()) {
          ReplicaUsage u;
          u.replica = r.name;
          u.pid = static_cast<int>(r.pid);
          u.time = now;
          u.rss_bytes = g->second.rss_bytes;
          Cpu cpu{g->second.cpu_seconds, now};
          auto last = last_cpu_.find(r.pid);
          if (last != last_cpu_.end() && now > last->second.at) {
            u.cpu_percent = 100.0 * (cpu.seconds - last->second.seconds) /
                            absl::ToDoubleSeconds(now - last->second.at);
            if (u.cpu_percent < 0) u.cpu_percent = 0;
          }
          seen[r.pid] = cpu;
          for (int pid : g->second.pids) {
            auto it = gpu.find(pid);
            if (it == gpu.end()) continue;
            u.gpu_memory_bytes = std::max<int64_t>(u.gpu_memory_bytes, 0) + it->second.memory_bytes;
            u.gpu_util_percent = std::max(u.gpu_util_percent, it->second.util_percent);
          }
          hist.push_back(u);
          round[job.id].push_back(u);
          while (hist.size() > keep_) hist.pop_front();
        }
        if (!hist.empty()) kept[key] = std::move(hist);
      }
    }
    history_ = std::move(kept);  // finished jobs drop out: retention is bounded
    last_cpu_ = std::move(seen);
  }
  if (sink_ && !round.empty()) sink_(round);
}

std::vector<ReplicaUsage> UsageSampler::Latest(const std::string& job_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ReplicaUsage> out;
  for (auto it = history_.lower_bound({job_id, ""});
       it != history_.end() && it->first.first == job_id; ++it) {
    out.push_back(it->second.back());
  }
  return out;
}

std::map<std::string, std::vector<ReplicaUsage>> UsageSampler::LatestAll() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, std::vector<ReplicaUsage>> out;
  for (const auto& [key, hist] : history_) out[key.first].push_back(hist.back());
  return out;
}

}  // namespace dlp::server
