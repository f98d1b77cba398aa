// Resource enforcement for dlpd's jobs: one cgroup per job holding dlp-run and
// every replica, limited to what the job requested (memory, CPU) and to a
// number of processes. Job cgroups are made only below the cgroup dlpd was
// started in (the subtree delegated to it), never elsewhere in the hierarchy:
// in cgroup v2 when the memory controller is available there, else in the v1
// memory, cpu, pids and devices hierarchies. On a machine whose GPUs dlpd
// places, the job can open only its own (gpu_device_access.h).
//
// Layout: DLPD_CGROUP/dlp-TAG/job-ID, TAG naming the state folder so that
// several dlpds may share one cgroup. In v2 dlpd first moves itself into the
// leaf DLPD_CGROUP/dlpd: a cgroup that hands controllers to its children may
// hold no process itself ("no internal processes").
// Thread-compatible; the methods other than Detect only read the object.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::server {

struct CgroupLimits {
  int64_t memory_bytes = 0;  // 0: no memory limit
  int64_t cpu_millis = 0;    // 0: no CPU quota
  int64_t pids = 0;          // 0: no process limit
};

class Cgroups {
 public:
  // Finds dlpd's own cgroup from /proc/self/cgroup and /proc/self/mountinfo
  // and makes dlp-TAG below it. Call before starting threads: in v2 it moves
  // the whole process. Unavailable saying why when no writable cgroup with a
  // memory controller exists.
  static absl::StatusOr<Cgroups> Detect(const std::string& tag);

  // "cgroup v1 (cpu, devices, memory, pids) below /sys/fs/cgroup/memory/..." for the log.
  std::string Describe() const;

  // Creates the job's cgroup with `limits`. Returns the cgroup.procs files a
  // process writes its pid to in order to join it (one per v1 hierarchy).
  absl::StatusOr<std::vector<std::string>> Create(const std::string& job,
                                                  const CgroupLimits& limits) const;

  // Lets the job's processes open only the GPUs whose minors are
  // `allowed_minors` (none: no GPU). Unavailable, saying why, where neither a
  // v1 devices hierarchy nor a v2 device program can enforce it.
  absl::Status RestrictGpus(const std::string& job, const std::vector<int>& allowed_minors) const;

  // How many of the job's processes the kernel's OOM killer killed (0 when the
  // job has no cgroup).
  int64_t OomKills(const std::string& job) const;

  // The processes in the job's cgroup; none when it has no cgroup.
  std::vector<pid_t> Processes(const std::string& job) const;

  // SIGKILLs whatever is left in the job's cgroup and removes it. False while
  // it still holds processes (call again later); true once it is gone.
  bool Remove(const std::string& job) const;

  // Removes dlp-TAG when no job's cgroup is left in it (at a clean stop).
  void RemoveIfUnused() const;

  // The job's cgroup folders, one per hierarchy.
  std::vector<std::string> Paths(const std::string& job) const;

 private:
  bool v2_ = false;
  // Folder holding the jobs (.../dlp-TAG) by controller; v2: one, under "".
  std::map<std::string, std::string> bases_;
};

// The limits of a job whose replicas request `memory_bytes` and `cpu_millis`
// in all, with `replicas` processes (plus dlp-run) each allowed kPidsPerReplica.
inline constexpr int64_t kPidsPerReplica = 4096;
CgroupLimits JobCgroupLimits(int64_t memory_bytes, int64_t cpu_millis, int replicas);

}  // namespace dlp::server
