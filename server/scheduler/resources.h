// What a machine has and what a job needs: CPUs (millis), memory and GPUs
// (milli-GPUs, so that `gpu: 0.5` is 500), with GPUs also counted by flavour.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/numeric/checked_math.h"
#include "dlp/job.h"

namespace dlp::server {

struct ResourceVector {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
  int64_t gpu_millis = 0;  // 1000 = one whole GPU
  // The part of gpu_millis by flavour ("h200", "h100-80gb-hbm3"): only for
  // jobs that name a resources.gpuType and for quotas such as gpu.h100=4.
  std::map<std::string, int64_t> gpu_flavours;

  // Saturates rather than wraps: a total past int64 is "more than any machine".
  ResourceVector& operator+=(const ResourceVector& o) {
    cpu_millis = base::SaturatingAdd(cpu_millis, o.cpu_millis);
    memory_bytes = base::SaturatingAdd(memory_bytes, o.memory_bytes);
    gpu_millis = base::SaturatingAdd(gpu_millis, o.gpu_millis);
    for (const auto& [flavour, millis] : o.gpu_flavours) {
      gpu_flavours[flavour] = base::SaturatingAdd(gpu_flavours[flavour], millis);
    }
    return *this;
  }
  ResourceVector& operator-=(const ResourceVector& o) {
    cpu_millis = base::SaturatingSub(cpu_millis, o.cpu_millis);
    memory_bytes = base::SaturatingSub(memory_bytes, o.memory_bytes);
    gpu_millis = base::SaturatingSub(gpu_millis, o.gpu_millis);
    for (const auto& [flavour, millis] : o.gpu_flavours) {
      gpu_flavours[flavour] = base::SaturatingSub(gpu_flavours[flavour], millis);
    }
    return *this;
  }
  friend bool operator==(const ResourceVector&, const ResourceVector&) = default;
};

// The sum over every replica of every role (a gang needs all of it at once),
// saturating: a spec from before dlp-job(5) bounded its quantities never fits.
ResourceVector DemandOf(const JobSpec& spec);

// The machine: CPUs this process may run on (sched_getaffinity) × 1000,
// MemTotal from /proc/meminfo, GPUs through NVML when it loads (else 0).
ResourceVector DetectCapacity();
// GPUs through NVML loaded at run time; 0 when NVML is absent or fails.
int DetectGpuCount();

// "3 CPUs", "1 CPU", "0.5 CPUs"; "4Gi"-style memory; "2 GPUs", "0.5 GPU".
std::string DescribeCpus(int64_t millis);
std::string DescribeMemory(int64_t bytes);
std::string DescribeGpus(int64_t millis);

}  // namespace dlp::server
