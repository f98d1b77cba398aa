// The machine's GPUs through NVML, loaded at run time (dlopen of
// libnvidia-ml.so.1, as resources.cc does), so dlpd needs no CUDA to build
// or to run without GPUs.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "server/scheduler/gpu_inventory.h"

namespace dlp::server {

// Every device by NVML index with its name, uuid and memory, and, for a
// device in MIG mode, its MIG instances. Unavailable when NVML does not load
// or initialise (no driver): a machine without GPUs.
absl::StatusOr<std::vector<PhysicalGpu>> ReadNvmlGpus();

}  // namespace dlp::server
