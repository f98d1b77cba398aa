#include "server/daemon/machine_gpus.h"

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/scheduler/gpu_inventory.h"
#include "server/scheduler/nvml_inventory.h"
#include "server/support/log.h"

namespace dlp::server {

absl::StatusOr<std::vector<GpuDevice>> LoadMachineGpus(const std::string& inventory_file,
                                                       const std::optional<int>& count) {
  if (!inventory_file.empty()) {
    if (count) {
      return absl::InvalidArgumentError(
          "--gpus and --gpu-inventory exclude each other: the inventory lists the devices");
    }
    DLP_ASSIGN_OR_RETURN(std::vector<PhysicalGpu> gpus, ReadGpuInventory(inventory_file));
    return SchedulableDevices(gpus);
  }
  if (count) return std::vector<GpuDevice>{};
  absl::StatusOr<std::vector<PhysicalGpu>> gpus = ReadNvmlGpus();
  if (!gpus.ok()) {
    Log(absl::StrCat("no GPUs: ", gpus.status().message()));
    return std::vector<GpuDevice>{};
  }
  return SchedulableDevices(*gpus);
}

}  // namespace dlp::server
