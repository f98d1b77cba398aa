// The GPUs dlpd schedules: the declared inventory (`--gpu-inventory`), else
// NVML's devices, else none; `--gpus N` instead schedules N anonymous
// devices "0".."N-1" (no names, no MIG).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// InvalidArgument when both an inventory and a count are given, or the
// inventory file is wrong (naming its line and field); NotFound when it
// cannot be read.
absl::StatusOr<std::vector<GpuDevice>> LoadMachineGpus(const std::string& inventory_file,
                                                       const std::optional<int>& count);

}  // namespace dlp::server
