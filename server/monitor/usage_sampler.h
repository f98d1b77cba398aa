// Samples every running replica's CPU %, RSS and (with NVML) GPU use every
// few seconds, keeping a bounded history per replica in memory.
//
// A replica is its rank's process group (dlp-run starts each rank in its own
// group, pgid = pid), so children a rank forks are counted with it. The pid
// comes from the job's status file, which the job writes: a group counts only
// when every process in it is one of the job's own (Executor::JobProcesses).
// Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "dlp/backend.h"
#include "dlp/job.h"

namespace dlp::server {

// A job to sample, and its processes as the kernel knows them.
struct SampledJob {
  Job job;
  std::set<int> processes;
};

class UsageSampler {
 public:
  // `running` lists the jobs to sample (called from the sampler thread).
  UsageSampler(std::function<std::vector<SampledJob>()> running, absl::Duration interval,
               size_t keep_per_replica = 150);
  ~UsageSampler();  // stops the thread
  // `sink` receives each round's new samples (job id -> samples), outside
  // the sampler's lock, e.g. to store them. Call before Start().
  void SetSink(std::function<void(const std::map<std::string, std::vector<ReplicaUsage>>&)> sink) {
    sink_ = std::move(sink);
  }
  void Start();
  // Takes one sample now (for tests and the first reading).
  void SampleOnce();

  // The latest sample of each replica of `job_id` that is still running.
  std::vector<ReplicaUsage> Latest(const std::string& job_id) const;
  // Latest of every job: job id -> samples.
  std::map<std::string, std::vector<ReplicaUsage>> LatestAll() const;

 private:
  struct Cpu {
    double seconds = 0;  // utime + stime of the group
    absl::Time at;
  };
  void Loop();

  std::function<std::vector<SampledJob>()> running_;
  absl::Duration interval_;
  size_t keep_;
  std::function<void(const std::map<std::string, std::vector<ReplicaUsage>>&)> sink_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::map<std::pair<std::string, std::string>, std::deque<ReplicaUsage>> history_;
  std::map<int64_t, Cpu> last_cpu_;  // per pgid
  std::thread thread_;
};

}  // namespace dlp::server
