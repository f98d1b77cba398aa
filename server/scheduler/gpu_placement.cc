#include "server/scheduler/gpu_placement.h"

#include <algorithm>
#include <optional>
#include <utility>

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
  std::vector<ReplicaPlacement> placements;
  for (const ReplicaGpuDemand& r : replicas) {
    if (r.gpu_millis > 0) placements.push_back({r.replica, {}});
  }
  if (placements.empty()) return placements;
  // `use` changes in place, each change logged so that a gang that does not
  // fit leaves it as it was (the policy tries thousands of jobs per round:
  // copying the map for each would cost more than the placement).
  std::vector<std::pair<std::string, std::optional<int64_t>>> undo;
  auto used = [&use](const std::string& id) {  // adds no zero entries
    const auto it = use.find(id);
    return it == use.end() ? int64_t{0} : it->second;
  };
  auto add = [&](const std::string& id, int64_t millis) {
    auto [it, inserted] = use.try_emplace(id, 0);
    undo.emplace_back(id, inserted ? std::nullopt : std::optional<int64_t>(it->second));
    it->second += millis;
  };
  auto fail = [&]() -> std::optional<std::vector<ReplicaPlacement>> {
    for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
      if (it->second) {
        use[it->first] = *it->second;
      } else {
        use.erase(it->first);
      }
    }
    return std::nullopt;
  };
  // Whole devices first, then fractions: a fraction placed first could take
  // the last unused device a whole-GPU replica of the same gang needs.
  for (bool whole_pass : {true, false}) {
    size_t next = 0;
    for (const ReplicaGpuDemand& r : replicas) {
      if (r.gpu_millis <= 0) continue;
      ReplicaPlacement& placement = placements[next++];
      const std::string wanted_flavour = r.gpu_type.empty() ? "" : FlavourOf(r.gpu_type);
      auto usable = [&](const GpuDevice& d) {
        return r.gpu_type.empty() || wanted_flavour == d.flavour ||
               absl::EqualsIgnoreCase(r.gpu_type, d.flavour) ||
               absl::EqualsIgnoreCase(r.gpu_type, d.name);
      };
      if (whole_pass) {
        int64_t whole = r.gpu_millis / 1000;
        for (const GpuDevice& d : devices) {
          if (whole == 0) break;
          if (!usable(d) || used(d.id) != 0) continue;
          add(d.id, 1000);
          placement.gpus.push_back({d.id, 1000});
          --whole;
        }
        if (whole > 0) return fail();
        continue;
      }
      const int64_t fraction = r.gpu_millis % 1000;
      if (fraction == 0) continue;
      // Best fit: the fullest device it still fits on.
      const GpuDevice* best = nullptr;
      int64_t best_used = -1;
      for (const GpuDevice& d : devices) {
        const int64_t on_device = used(d.id);
        if (!usable(d) || on_device + fraction > 1000) continue;
        if (on_device > best_used) {
          best = &d;
          best_used = on_device;
        }
      }
      if (best == nullptr) return fail();
      add(best->id, fraction);
      placement.gpus.push_back({best->id, fraction});
    }
  }
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
