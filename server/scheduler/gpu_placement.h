// Which GPU each replica gets: whole devices for whole GPUs, fractions
// (`gpu: 0.5`) packed onto one device. A pure function of the devices and
// what is in use, so the policy can try placements while it decides.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// milli-GPUs in use on each device (GpuDevice::id).
using DeviceUse = std::map<std::string, int64_t>;

// The snapshot's devices, or "0".."n-1" from its capacity when it declares none.
std::vector<GpuDevice> DevicesOf(const Snapshot& snapshot);
// What the running jobs hold on each device.
DeviceUse UseOf(const std::vector<RunningJob>& running);

// Places every replica: a demand of whole GPUs takes that many unused devices
// (all whole demands of the gang first), a fraction goes to the fullest device
// it still fits on (best fit, so whole devices stay free for whole-GPU jobs);
// a gpu_type restricts the devices to that flavour or name. nullopt when the gang does not fit;
// else the placements, and `use` includes them.
std::optional<std::vector<ReplicaPlacement>> PlaceGpus(
    const std::vector<ReplicaGpuDemand>& replicas, const std::vector<GpuDevice>& devices,
    DeviceUse& use);

// A device name's flavour: lower case, without "NVIDIA ", spaces as '-'
// ("NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3").
std::string FlavourOf(absl::string_view device_name);
// Whether `gpu_type` (a flavour or a device name, any case) names `device`.
bool MatchesGpuType(const GpuDevice& device, absl::string_view gpu_type);

}  // namespace dlp::server
