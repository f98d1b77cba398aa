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

// /proc/PID/stat: "pid (comm) state ppid pgrp ... utime(14) stime(15) ... rss(24)".
bool ReadStat(int pid, int64_t* pgrp, double* cpu_seconds, int64_t* rss_bytes) {
  absl::StatusOr<std::string> read = ReadProcFile(ProcPath(pid, "stat"));
  if (!read.ok()) return false;  // exited since the /proc listing
  const std::string& text = *read;
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 2));
  std::vector<std::string> f;
  std::string word;
  while (fields >> word) f.push_back(word);
  // f[0] is field 3 (state): field N is f[N - 3].
  if (f.size() < 22) return false;
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const int64_t kPage = sysconf(_SC_PAGESIZE);
  *pgrp = std::atoll(f[5 - 3].c_str());
  *cpu_seconds = (std::atof(f[14 - 3].c_str()) + std::atof(f[15 - 3].c_str())) / kTicks;
  *rss_bytes = std::atoll(f[24 - 3].c_str()) * kPage;
  return true;
}

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
    int64_t pgrp = 0, rss = 0;
    double cpu = 0;
    if (!ReadStat(static_cast<int>(pid), &pgrp, &cpu, &rss)) continue;
    GroupStats& g = groups[pgrp];
    g.cpu_seconds += cpu;
    g.rss_bytes += rss;
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
