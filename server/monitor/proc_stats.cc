#include "server/monitor/proc_stats.h"

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "server/proc/proc_file.h"

namespace dlp::server {
namespace {

// The few NVML entry points used, declared here (no nvml.h needed).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
};
struct NvmlUtilization {
  unsigned int gpu, memory;
};
struct Nvml {
  bool ok = false;
  int (*device_count)(unsigned int*) = nullptr;
  int (*device_handle)(unsigned int, void**) = nullptr;
  int (*utilization)(void*, NvmlUtilization*) = nullptr;
  int (*processes)(void*, unsigned int*, NvmlProcessInfo*) = nullptr;
};

Nvml& LoadNvml() {
  static Nvml nvml = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return n;
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.device_count = reinterpret_cast<int (*)(unsigned int*)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    n.device_handle = reinterpret_cast<int (*)(unsigned int, void**)>(
        dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n.utilization = reinterpret_cast<int (*)(void*, NvmlUtilization*)>(
        dlsym(lib, "nvmlDeviceGetUtilizationRates"));
    // _v3 matches the struct above (pid, memory, two instance ids).
    n.processes = reinterpret_cast<int (*)(void*, unsigned int*, NvmlProcessInfo*)>(
        dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
    n.ok = init && n.device_count && n.device_handle && n.utilization && n.processes &&
           init() == 0;
    return n;
  }();
  return nvml;
}

}  // namespace

std::map<int64_t, GroupStats> ScanProcessGroups() {
  std::map<int64_t, GroupStats> groups;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return groups;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    std::optional<ProcStat> stat = ReadProcStat(static_cast<pid_t>(pid));
    if (!stat) continue;  // exited since the /proc listing
    GroupStats& g = groups[stat->pgrp];
    g.cpu_seconds += stat->cpu_seconds;
    g.rss_bytes += stat->rss_bytes;
    ++g.processes;
    g.pids.push_back(static_cast<int>(pid));
  }
  closedir(dir);
  return groups;
}

std::map<int, GpuProcessUse> GpuUseByPid() {
  std::map<int, GpuProcessUse> out;
  Nvml& nvml = LoadNvml();
  if (!nvml.ok) return out;
  unsigned int count = 0;
  if (nvml.device_count(&count) != 0) return out;
  for (unsigned int i = 0; i < count; ++i) {
    void* dev = nullptr;
    if (nvml.device_handle(i, &dev) != 0) continue;
    NvmlUtilization util{};
    nvml.utilization(dev, &util);
    NvmlProcessInfo infos[64];
    unsigned int n = 64;
    if (nvml.processes(dev, &n, infos) != 0) continue;
    for (unsigned int k = 0; k < n && k < 64; ++k) {
      GpuProcessUse& use = out[static_cast<int>(infos[k].pid)];
      use.memory_bytes += static_cast<int64_t>(infos[k].usedGpuMemory);
      use.util_percent = std::max(use.util_percent, static_cast<double>(util.gpu));
    }
  }
  return out;
}

}  // namespace dlp::server
