// Process-group statistics from /proc, and GPU use through NVML when the
// driver's library is present (loaded with dlopen, so dlpd needs no CUDA).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace dlp::server {

struct GroupStats {
  double cpu_seconds = 0;  // utime + stime of every process in the group
  int64_t rss_bytes = 0;
  int processes = 0;
  std::vector<int> pids;
};

// Every process group's totals, in one scan of /proc.
std::map<int64_t, GroupStats> ScanProcessGroups();

struct GpuProcessUse {
  int64_t memory_bytes = 0;
  double util_percent = 0;  // of the device(s) it runs on
};

// Per pid: GPU memory in use and the utilisation of its device. Empty without
// NVML or GPUs. Thread-compatible (called from the sampler thread only).
std::map<int, GpuProcessUse> GpuUseByPid();

}  // namespace dlp::server
