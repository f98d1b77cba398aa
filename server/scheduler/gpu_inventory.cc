#include "server/scheduler/gpu_inventory.h"

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "server/scheduler/gpu_placement.h"
#include "yaml-cpp/yaml.h"

namespace dlp::server {
namespace {

constexpr int kMaxDevices = 1024;

// Reads one inventory document; every error names the source, line and field.
class InventoryReader {
 public:
  explicit InventoryReader(std::string source) : source_(std::move(source)) {}

  absl::Status Error(const YAML::Node& node, const std::string& field, absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ":", node.Mark().line + 1, ": ", field, ": ", what));
  }

  absl::Status CheckKeys(const YAML::Node& node, const std::string& field,
                         const std::set<std::string>& known) {
    if (!node.IsMap()) return Error(node, field, "must be a map");
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (!known.contains(key)) {
        return Error(kv.first, field.empty() ? key : absl::StrCat(field, ".", key),
                     absl::StrCat("unknown field; expected one of ", absl::StrJoin(known, ", ")));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(const YAML::Node& map, const std::string& field,
                                     const char* key, bool required) {
    const YAML::Node n = map[key];
    const std::string path = absl::StrCat(field, ".", key);
    if (!n.IsDefined() || n.IsNull()) {
      if (required) return Error(map, path, "required");
      return std::string();
    }
    if (!n.IsScalar() || n.Scalar().empty()) return Error(n, path, "must be a non-empty string");
    return n.Scalar();
  }

  absl::StatusOr<int64_t> Memory(const YAML::Node& map, const std::string& field) {
    DLP_ASSIGN_OR_RETURN(std::string text, String(map, field, "memory", false));
    if (text.empty()) return int64_t{0};
    absl::StatusOr<int64_t> bytes = ParseMemoryBytes(text);
    if (!bytes.ok()) return Error(map["memory"], field + ".memory", bytes.status().message());
    return *bytes;
  }

  absl::StatusOr<PhysicalGpu> Device(const YAML::Node& node, const std::string& field) {
    DLP_RETURN_IF_ERROR(CheckKeys(node, field, {"index", "uuid", "name", "memory", "minor", "mig"}));
    PhysicalGpu gpu;
    DLP_ASSIGN_OR_RETURN(std::string index, String(node, field, "index", true));
    if (!absl::SimpleAtoi(index, &gpu.index) || gpu.index < 0 || gpu.index >= kMaxDevices) {
      return Error(node["index"], field + ".index",
                   absl::StrCat("must be an integer from 0 to ", kMaxDevices - 1));
    }
    DLP_ASSIGN_OR_RETURN(std::string minor, String(node, field, "minor", false));
    if (!minor.empty() && (!absl::SimpleAtoi(minor, &gpu.minor) || gpu.minor < 0 ||
                           gpu.minor > kMaxGpuMinor)) {
      return Error(node["minor"], field + ".minor",
                   absl::StrCat("must be an integer from 0 to ", kMaxGpuMinor,
                                " (N of /dev/nvidiaN)"));
    }
    DLP_ASSIGN_OR_RETURN(gpu.uuid, String(node, field, "uuid", true));
    DLP_ASSIGN_OR_RETURN(gpu.name, String(node, field, "name", true));
    DLP_ASSIGN_OR_RETURN(gpu.memory_bytes, Memory(node, field));
    if (const YAML::Node mig = node["mig"]; mig.IsDefined() && !mig.IsNull()) {
      if (!mig.IsSequence()) return Error(mig, field + ".mig", "must be a list of MIG instances");
      gpu.mig_enabled = true;
      for (size_t i = 0; i < mig.size(); ++i) {
        const std::string f = absl::StrCat(field, ".mig[", i, "]");
        DLP_RETURN_IF_ERROR(CheckKeys(mig[i], f, {"uuid", "name", "profile", "memory"}));
        PhysicalGpu::MigInstance instance;
        DLP_ASSIGN_OR_RETURN(instance.uuid, String(mig[i], f, "uuid", true));
        if (!absl::StartsWith(instance.uuid, "MIG-")) instance.uuid = "MIG-" + instance.uuid;
        DLP_ASSIGN_OR_RETURN(instance.profile, String(mig[i], f, "profile", false));
        if (instance.profile.empty()) {
          DLP_ASSIGN_OR_RETURN(instance.profile, String(mig[i], f, "name", false));
        }
        DLP_ASSIGN_OR_RETURN(instance.memory_bytes, Memory(mig[i], f));
        gpu.mig.push_back(std::move(instance));
      }
    }
    return gpu;
  }

  absl::StatusOr<std::vector<PhysicalGpu>> Read(const YAML::Node& root) {
    if (!root.IsMap()) return Error(root, "(top)", "must be a map with a list of devices");
    DLP_RETURN_IF_ERROR(CheckKeys(root, "", {"devices"}));
    const YAML::Node devices = root["devices"];
    if (!devices.IsDefined() || !devices.IsSequence()) {
      return Error(devices.IsDefined() ? devices : root, "devices", "must be a list of devices");
    }
    if (devices.size() > kMaxDevices) {
      return Error(devices, "devices", absl::StrCat("at most ", kMaxDevices, " devices"));
    }
    std::vector<PhysicalGpu> gpus;
    std::set<std::string> ids;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string field = absl::StrCat("devices[", i, "]");
      DLP_ASSIGN_OR_RETURN(PhysicalGpu gpu, Device(devices[i], field));
      // An index or uuid twice would place two replicas on one device unknowingly.
      std::vector<std::string> names = {absl::StrCat("index ", gpu.index), gpu.uuid};
      for (const auto& m : gpu.mig) names.push_back(m.uuid);
      for (const std::string& name : names) {
        if (!ids.insert(name).second) {
          return Error(devices[i], field, absl::StrCat(name, " is listed twice"));
        }
      }
      gpus.push_back(std::move(gpu));
    }
    return gpus;
  }

 private:
  std::string source_;
};

}  // namespace

std::vector<GpuDevice> SchedulableDevices(const std::vector<PhysicalGpu>& gpus) {
  std::vector<GpuDevice> devices;
  for (const PhysicalGpu& gpu : gpus) {
    const int minor = gpu.minor >= 0 ? gpu.minor : gpu.index;
    if (!gpu.mig_enabled) {
      devices.push_back({.id = absl::StrCat(gpu.index),
                         .uuid = gpu.uuid,
                         .name = gpu.name,
                         .flavour = FlavourOf(gpu.name),
                         .memory_bytes = gpu.memory_bytes,
                         .minor = minor});
      continue;
    }
    for (const PhysicalGpu::MigInstance& m : gpu.mig) {
      // NVML names a MIG device "<parent> MIG <profile>": its own flavour.
      const std::string name = m.profile.empty() ? absl::StrCat(gpu.name, " MIG")
                                                 : absl::StrCat(gpu.name, " MIG ", m.profile);
      devices.push_back({.id = m.uuid,
                         .uuid = m.uuid,
                         .name = name,
                         .flavour = FlavourOf(name),
                         .memory_bytes = m.memory_bytes,
                         .minor = minor});
    }
  }
  return devices;
}

absl::StatusOr<std::vector<PhysicalGpu>> ParseGpuInventory(const std::string& text,
                                                           const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", e.mark.line + 1, ": invalid YAML: ", e.msg));
  }
  try {
    return InventoryReader(source).Read(root);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ":", e.mark.line + 1, ": ", e.msg));
  }
}

absl::StatusOr<std::vector<PhysicalGpu>> ReadGpuInventory(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read GPU inventory ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseGpuInventory(buffer.str(), path);
}

ResourceVector GpuCapacityOf(const std::vector<GpuDevice>& devices) {
  ResourceVector capacity;
  for (const GpuDevice& d : devices) {
    capacity.gpu_millis += 1000;
    if (!d.flavour.empty()) capacity.gpu_flavours[d.flavour] += 1000;
  }
  return capacity;
}

std::string DescribeDevices(const std::vector<GpuDevice>& devices) {
  std::vector<std::string> parts;
  for (const GpuDevice& d : devices) {
    parts.push_back(absl::StrCat(d.id, " (", d.name.empty() ? "unnamed" : d.name,
                                 d.memory_bytes > 0 ? ", " : "",
                                 d.memory_bytes > 0 ? DescribeMemory(d.memory_bytes) : "", ")"));
  }
  return absl::StrCat(devices.size(), devices.size() == 1 ? " device" : " devices",
                      parts.empty() ? "" : ": ", absl::StrJoin(parts, ", "));
}

}  // namespace dlp::server
