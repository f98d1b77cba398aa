#include "server/scheduler/gpu_placement.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace dlp::server {

std::vector<GpuDevice> DevicesOf(const Snapshot& snapshot) {
  if (!snapshot.devices.empty()) return snapshot.devices;
  std::vector<GpuDevice> devices;
  for (int64_t i = 0; i < snapshot.capacity.gpu_millis / 1000; ++i) {
    devices.push_back({.id = absl::StrCat(i)});
  }
  return devices;
}

DeviceUse UseOf(const std::vector<RunningJob>& running) {
  DeviceUse use;
  for (const RunningJob& job : running) {
    for (const ReplicaPlacement& p : job.placement) {
      for (const GpuShare& share : p.gpus) use[share.device] += share.millis;
    }
  }
  return use;
}

std::optional<std::vector<ReplicaPlacement>> PlaceGpus(
    const std::vector<ReplicaGpuDemand>& replicas, const std::vector<GpuDevice>& devices,
    DeviceUse& use) {
  DeviceUse trial = use;
  // (A lookup that adds no zero entries: `use` holds only devices in use.)
  auto used = [&trial](const std::string& id) {
    const auto it = trial.find(id);
    return it == trial.end() ? int64_t{0} : it->second;
  };
  std::vector<ReplicaPlacement> placements;
  for (const ReplicaGpuDemand& r : replicas) {
    if (r.gpu_millis > 0) placements.push_back({r.replica, {}});
  }
  // Whole devices first, then fractions: a fraction placed first could take
  // the last unused device a whole-GPU replica of the same gang needs.
  for (bool whole_pass : {true, false}) {
    size_t next = 0;
    for (const ReplicaGpuDemand& r : replicas) {
      if (r.gpu_millis <= 0) continue;
      ReplicaPlacement& placement = placements[next++];
      auto usable = [&](const GpuDevice& d) {
        return r.gpu_type.empty() || MatchesGpuType(d, r.gpu_type);
      };
      if (whole_pass) {
        int64_t whole = r.gpu_millis / 1000;
        for (const GpuDevice& d : devices) {
          if (whole == 0) break;
          if (!usable(d) || used(d.id) != 0) continue;
          trial[d.id] = 1000;
          placement.gpus.push_back({d.id, 1000});
          --whole;
        }
        if (whole > 0) return std::nullopt;
        continue;
      }
      const int64_t fraction = r.gpu_millis % 1000;
      if (fraction == 0) continue;
      // Best fit: the fullest device it still fits on.
      const GpuDevice* best = nullptr;
      for (const GpuDevice& d : devices) {
        if (!usable(d) || used(d.id) + fraction > 1000) continue;
        if (best == nullptr || used(d.id) > used(best->id)) best = &d;
      }
      if (best == nullptr) return std::nullopt;
      trial[best->id] += fraction;
      placement.gpus.push_back({best->id, fraction});
    }
  }
  use = std::move(trial);
  return placements;
}

std::string FlavourOf(absl::string_view device_name) {
  std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(device_name));
  if (absl::StartsWith(name, "nvidia ")) name = name.substr(7);
  return absl::StrReplaceAll(name, {{" ", "-"}});
}

bool MatchesGpuType(const GpuDevice& device, absl::string_view gpu_type) {
  return absl::EqualsIgnoreCase(gpu_type, device.flavour) ||
         absl::EqualsIgnoreCase(gpu_type, device.name) ||
         FlavourOf(gpu_type) == device.flavour;
}

}  // namespace dlp::server
