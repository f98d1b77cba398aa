// The GPUs dlpd schedules, as a list of devices (snapshot.h's GpuDevice): from
// a declared inventory file (`dlpd --gpu-inventory`, dlpd(8)) or from NVML at
// run time (nvml_inventory.h). A MIG-enabled device is replaced by its MIG
// instances, each its own device named "MIG-<uuid>" (what CUDA_VISIBLE_DEVICES
// takes); any other device is named by its index.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/scheduler/resources.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// NVIDIA's GPU device nodes: /dev/nvidiaN is character device 195:N with
// N <= 253 (254 is nvidia-modeset, 255 nvidiactl).
inline constexpr int kNvidiaMajor = 195;
inline constexpr int kMaxGpuMinor = 253;

// What NVML (or an inventory file) says of one physical device.
struct PhysicalGpu {
  int index = 0;
  // N of the device node /dev/nvidiaN (character device 195:N) that a process
  // opens to use it: NVML's minor number, usually the index (-1: the index).
  int minor = -1;
  std::string uuid;  // "GPU-..."
  std::string name;  // "NVIDIA H200"
  int64_t memory_bytes = 0;
  struct MigInstance {
    std::string uuid;     // "MIG-..." (the prefix is added when missing)
    std::string profile;  // "1g.18gb"; empty: unknown
    int64_t memory_bytes = 0;
  };
  // MIG mode: only the instances are schedulable (none when none was created).
  bool mig_enabled = false;
  std::vector<MigInstance> mig;
};

// The schedulable devices of `gpus`, in order: each device, or its MIG
// instances in its place.
std::vector<GpuDevice> SchedulableDevices(const std::vector<PhysicalGpu>& gpus);

// Parses an inventory (YAML or JSON):
//   devices:
//     - {index: 0, uuid: GPU-..., name: NVIDIA H200, memory: 141Gi, minor: 0}
//     - index: 1
//       uuid: GPU-...
//       name: NVIDIA H100 80GB HBM3
//       memory: 80Gi
//       mig: [{uuid: MIG-..., profile: 3g.40gb, memory: 40Gi}]
// InvalidArgument naming `source`, the line and the field ("inv.yaml:4:
// devices[1].memory: ...").
absl::StatusOr<std::vector<PhysicalGpu>> ParseGpuInventory(const std::string& text,
                                                           const std::string& source);
// NotFound when `path` cannot be read; else as ParseGpuInventory.
absl::StatusOr<std::vector<PhysicalGpu>> ReadGpuInventory(const std::string& path);

// The GPU part of a machine's capacity: 1000 milli-GPUs per device, also
// counted by flavour.
ResourceVector GpuCapacityOf(const std::vector<GpuDevice>& devices);

// "2 devices: 0 (NVIDIA H200, 141Gi), MIG-... (NVIDIA H100 MIG 3g.40gb, 40Gi)".
std::string DescribeDevices(const std::vector<GpuDevice>& devices);

}  // namespace dlp::server
