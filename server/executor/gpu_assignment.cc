#include "server/executor/gpu_assignment.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/env_names.h"
#include "server/store/placement_codec.h"

namespace dlp::server {

namespace env = contract::env;

bool MpsControlDaemonRunning() {
  const char* dir = std::getenv(env::kCudaMpsPipeDirectory);
  const std::string pipe_dir = dir != nullptr && *dir != '\0' ? dir : "/tmp/nvidia-mps";
  struct stat st {};
  return stat((pipe_dir + "/control").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

std::string GpuSharingDescription(bool mps) {
  return mps ? "MPS (each fractional replica limited to its share of threads and memory)"
             : "by placement only (no MPS control daemon)";
}

void AssignDevices(const std::vector<ReplicaPlacement>& placement,
                   const std::vector<GpuDevice>& devices, bool mps, contract::Group& group) {
  for (contract::Role& role : group.roles) {
    role.devices.assign(role.count, contract::ReplicaDevices{});
    for (int i = 0; i < role.count; ++i) {
      const std::string name = absl::StrCat(role.role, "-", i);
      const auto p = std::find_if(placement.begin(), placement.end(),
                                  [&name](const ReplicaPlacement& r) { return r.replica == name; });
      if (p == placement.end() || p->gpus.empty()) continue;
      contract::ReplicaDevices& out = role.devices[i];
      out.visible = VisibleDevices(*p);
      out.env[env::kCudaDeviceOrder] = "PCI_BUS_ID";
      const GpuShare& share = p->gpus.front();
      if (!mps || p->gpus.size() != 1 || share.millis >= 1000) continue;
      out.env[env::kCudaMpsActiveThreadPercentage] =
          absl::StrCat(std::max<int64_t>(1, share.millis / 10));
      const auto d = std::find_if(devices.begin(), devices.end(),
                                  [&share](const GpuDevice& g) { return g.id == share.device; });
      if (d != devices.end() && d->memory_bytes > 0) {
        const int64_t mib = d->memory_bytes / (int64_t{1} << 20) * share.millis / 1000;
        out.env[env::kCudaMpsPinnedDeviceMemLimit] = absl::StrCat("0=", mib, "M");
      }
    }
  }
}

std::string AssignJobDevices(JobRecord& record, const std::vector<GpuDevice>& devices,
                             contract::Group& group) {
  const bool mps = MpsControlDaemonRunning();
  AssignDevices(record.placement, devices, mps, group);
  bool shared = false;
  std::vector<std::string> parts;
  for (const ReplicaPlacement& p : record.placement) {
    for (const GpuShare& s : p.gpus) shared = shared || s.millis < 1000;
    parts.push_back(absl::StrCat(p.replica, " ", VisibleDevices(p)));
  }
  record.job.gpu_sharing = shared ? GpuSharingDescription(mps) : "";
  return parts.empty() ? "" : absl::StrCat(" on GPUs ", absl::StrJoin(parts, ", "));
}

}  // namespace dlp::server
