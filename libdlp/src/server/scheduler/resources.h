// What a machine has and what a job needs: CPUs (millis), memory and GPUs.
#pragma once

#include <cstdint>
#include <string>

#include "dlp/job.h"

namespace dlp::server {

struct ResourceVector {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
  int gpus = 0;

  ResourceVector& operator+=(const ResourceVector& o) {
    cpu_millis += o.cpu_millis;
    memory_bytes += o.memory_bytes;
    gpus += o.gpus;
    return *this;
  }
};

// The sum over every replica of every role (a gang needs all of it at once).
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
