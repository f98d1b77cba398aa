#include "server/scheduler/nvml_inventory.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

// NVML's C API, declared here so that no CUDA header is needed at build time.
using Device = void*;
struct Memory {
  unsigned long long total, free, used;  // NOLINT(runtime/int): NVML's type
};
constexpr int kSuccess = 0;
constexpr unsigned kMigEnabled = 1;
constexpr unsigned kBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE, > the UUID's 80

struct Nvml {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*uuid)(Device, char*, unsigned) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*minor)(Device, unsigned*) = nullptr;                 // optional
  int (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;  // optional
  int (*max_mig)(Device, unsigned*) = nullptr;              // optional
  int (*mig_handle)(Device, unsigned, Device*) = nullptr;   // optional
};

template <typename Fn>
void Bind(void* lib, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
}

std::string Text(int (*get)(Device, char*, unsigned), Device device) {
  char buffer[kBufferSize] = {0};
  if (get == nullptr || get(device, buffer, kBufferSize) != kSuccess) return "";
  return buffer;
}

int64_t MemoryOf(const Nvml& nvml, Device device) {
  Memory m{};
  if (nvml.memory == nullptr || nvml.memory(device, &m) != kSuccess) return 0;
  return static_cast<int64_t>(m.total);
}

// Whether `device` is in MIG mode, and its MIG instances. The parent's name
// is kept apart: SchedulableDevices adds it to the profile.
void ReadMig(const Nvml& nvml, Device device, PhysicalGpu& gpu) {
  unsigned current = 0, pending = 0, slots = 0;
  if (nvml.mig_mode == nullptr || nvml.max_mig == nullptr || nvml.mig_handle == nullptr ||
      nvml.mig_mode(device, &current, &pending) != kSuccess || current != kMigEnabled) {
    return;
  }
  gpu.mig_enabled = true;
  if (nvml.max_mig(device, &slots) != kSuccess) return;
  const std::string& parent_name = gpu.name;
  std::vector<PhysicalGpu::MigInstance>& instances = gpu.mig;
  for (unsigned i = 0; i < slots; ++i) {
    Device mig = nullptr;
    if (nvml.mig_handle(device, i, &mig) != kSuccess) continue;  // an empty slot
    PhysicalGpu::MigInstance instance;
    instance.uuid = Text(nvml.uuid, mig);
    if (instance.uuid.empty()) continue;
    if (instance.uuid.rfind("MIG-", 0) != 0) instance.uuid = "MIG-" + instance.uuid;
    // NVML: "NVIDIA H100 80GB HBM3 MIG 1g.10gb"; keep the profile.
    std::string name = Text(nvml.name, mig);
    const std::string prefix = parent_name + " MIG ";
    instance.profile = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
    instance.memory_bytes = MemoryOf(nvml, mig);
    instances.push_back(std::move(instance));
  }
}

}  // namespace

absl::StatusOr<std::vector<PhysicalGpu>> ReadNvmlGpus() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return absl::UnavailableError("NVML (libnvidia-ml.so.1) not found");
  Nvml nvml;
  Bind(lib, "nvmlInit_v2", nvml.init);
  Bind(lib, "nvmlShutdown", nvml.shutdown);
  Bind(lib, "nvmlDeviceGetCount_v2", nvml.count);
  Bind(lib, "nvmlDeviceGetHandleByIndex_v2", nvml.handle);
  Bind(lib, "nvmlDeviceGetName", nvml.name);
  Bind(lib, "nvmlDeviceGetUUID", nvml.uuid);
  Bind(lib, "nvmlDeviceGetMemoryInfo", nvml.memory);
  Bind(lib, "nvmlDeviceGetMinorNumber", nvml.minor);
  Bind(lib, "nvmlDeviceGetMigMode", nvml.mig_mode);
  Bind(lib, "nvmlDeviceGetMaxMigDeviceCount", nvml.max_mig);
  Bind(lib, "nvmlDeviceGetMigDeviceHandleByIndex", nvml.mig_handle);
  if (nvml.init == nullptr || nvml.count == nullptr || nvml.handle == nullptr) {
    dlclose(lib);
    return absl::UnavailableError("NVML lacks nvmlInit_v2 or the device functions");
  }
  if (const int rc = nvml.init(); rc != kSuccess) {
    dlclose(lib);
    return absl::UnavailableError(absl::StrCat("nvmlInit_v2 failed (NVML error ", rc, ")"));
  }
  std::vector<PhysicalGpu> gpus;
  unsigned count = 0;
  if (nvml.count(&count) != kSuccess) count = 0;
  for (unsigned i = 0; i < count; ++i) {
    Device device = nullptr;
    if (nvml.handle(i, &device) != kSuccess) continue;
    PhysicalGpu gpu;
    gpu.index = static_cast<int>(i);
    gpu.name = Text(nvml.name, device);
    gpu.uuid = Text(nvml.uuid, device);
    gpu.memory_bytes = MemoryOf(nvml, device);
    if (unsigned minor = 0; nvml.minor != nullptr && nvml.minor(device, &minor) == kSuccess) {
      gpu.minor = static_cast<int>(minor);
    }
    ReadMig(nvml, device, gpu);
    gpus.push_back(std::move(gpu));
  }
  if (nvml.shutdown != nullptr) nvml.shutdown();
  dlclose(lib);
  return gpus;
}

}  // namespace dlp::server
