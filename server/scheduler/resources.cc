#include "server/scheduler/resources.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/scheduler/gpu_placement.h"

namespace dlp::server {

ResourceVector DemandOf(const JobSpec& spec) {
  using base::SaturatingMul;
  ResourceVector total;
  for (const ReplicaSpec& r : spec.replicas) {
    const int64_t count = r.count;
    ResourceVector replica;
    replica.cpu_millis = SaturatingMul(r.resources.cpu_millis, count);
    replica.memory_bytes = SaturatingMul(r.resources.memory_bytes, count);
    replica.gpu_millis = SaturatingMul(r.resources.gpu_millis, count);
    if (!r.resources.gpu_type.empty() && replica.gpu_millis > 0) {
      replica.gpu_flavours[FlavourOf(r.resources.gpu_type)] = replica.gpu_millis;
    }
    total += replica;
  }
  return total;
}

int DetectGpuCount() {
  // NVML's C API, declared here so that no CUDA header is needed at build time.
  using InitFn = int (*)();
  using CountFn = int (*)(unsigned int*);
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return 0;
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "nvmlDeviceGetCount_v2"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  unsigned int n = 0;
  if (init == nullptr || count == nullptr || init() != 0) {
    dlclose(lib);
    return 0;
  }
  if (count(&n) != 0) n = 0;
  if (shutdown != nullptr) shutdown();
  dlclose(lib);
  return static_cast<int>(n);
}

ResourceVector DetectCapacity() {
  ResourceVector capacity;
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  capacity.cpu_millis = int64_t{cpus > 0 ? cpus : 1} * 1000;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream in(line);
    std::string key;
    int64_t kib = 0;
    if (in >> key >> kib && key == "MemTotal:") {
      capacity.memory_bytes = base::SaturatingMul<int64_t>(kib, 1024);
      break;
    }
  }
  capacity.gpu_millis = int64_t{DetectGpuCount()} * 1000;
  return capacity;
}

std::string DescribeCpus(int64_t millis) {
  std::string n = millis % 1000 == 0 ? absl::StrCat(millis / 1000)
                                     : absl::StrFormat("%g", millis / 1000.0);
  return absl::StrCat(n, millis == 1000 ? " CPU" : " CPUs");
}

std::string DescribeGpus(int64_t millis) {
  std::string n = millis % 1000 == 0 ? absl::StrCat(millis / 1000)
                                     : absl::StrFormat("%g", millis / 1000.0);
  return absl::StrCat(n, millis == 1000 || millis < 1000 ? " GPU" : " GPUs");
}

std::string DescribeMemory(int64_t bytes) {
  constexpr int64_t kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024;
  if (bytes >= kGi) return absl::StrFormat("%.4gGi", static_cast<double>(bytes) / kGi);
  if (bytes >= kMi) return absl::StrFormat("%.4gMi", static_cast<double>(bytes) / kMi);
  if (bytes >= kKi) return absl::StrFormat("%.4gKi", static_cast<double>(bytes) / kKi);
  return absl::StrCat(bytes);
}

}  // namespace dlp::server
