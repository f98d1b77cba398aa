// What a machine has and what a job needs: CPUs (millis), memory and GPUs.
#pragma once

#include <cstdint>
#include <string>

#include "common/checked_math.h"
#include "dlp/job.h"

namespace dlp::server {

struct ResourceVector {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
  int gpus = 0;

  // Saturates rather than wraps: a total past int64 is "more than any machine".
  ResourceVector& operator+=(const ResourceVector& o) {
    cpu_millis = internal::SaturatingAdd(cpu_millis, o.cpu_millis);
    memory_bytes = internal::SaturatingAdd(memory_bytes, o.memory_bytes);
    gpus = internal::SaturatingAdd(gpus, o.gpus);
    return *this;
  }
  ResourceVector& operator-=(const ResourceVector& o) {
    cpu_millis = internal::SaturatingSub(cpu_millis, o.cpu_millis);
    memory_bytes = internal::SaturatingSub(memory_bytes, o.memory_bytes);
    gpus = internal::SaturatingSub(gpus, o.gpus);
    return *this;
  }
};

// The sum over every replica of every role (a gang needs all of it at once),
// saturating: a spec from before dlp-job(5) bounded its quantities never fits.
ResourceVector DemandOf(const JobSpec& spec);

// The machine: CPUs this process may run on (sched_getaffinity) × 1000,
// MemTotal from /proc/meminfo, GPUs through NVML when it loads (else 0).
ResourceVector DetectCapacity();
// GPUs through NVML loaded at run time; 0 when NVML is absent or fails.
int DetectGpuCount();

// "3 CPUs", "1 CPU", "0.5 CPUs"; "4Gi"-style memory.
std::string DescribeCpus(int64_t millis);
std::string DescribeMemory(int64_t bytes);

}  // namespace dlp::server
