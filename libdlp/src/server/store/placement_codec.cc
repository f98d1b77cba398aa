#include "server/store/placement_codec.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/spec.h"
#include "nlohmann/json.hpp"

namespace dlp::server {

std::string PlacementToJson(const std::vector<ReplicaPlacement>& placement,
                            const std::string& sharing) {
  if (placement.empty()) return "";
  nlohmann::ordered_json replicas = nlohmann::ordered_json::array();
  for (const ReplicaPlacement& p : placement) {
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (const GpuShare& s : p.gpus) gpus.push_back({{"device", s.device}, {"millis", s.millis}});
    replicas.push_back({{"replica", p.replica}, {"gpus", std::move(gpus)}});
  }
  nlohmann::ordered_json j;
  j["sharing"] = sharing;
  j["replicas"] = std::move(replicas);
  return j.dump();
}

absl::Status PlacementFromJson(const std::string& text, std::vector<ReplicaPlacement>& placement,
                               std::string& sharing) {
  placement.clear();
  sharing.clear();
  if (text.empty()) return absl::OkStatus();
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [] { return absl::InvalidArgumentError("the stored GPU placement is malformed"); };
  if (!j.is_object() || !j.contains("replicas") || !j["replicas"].is_array()) return bad();
  if (j.contains("sharing") && j["sharing"].is_string()) sharing = j["sharing"];
  for (const nlohmann::json& r : j["replicas"]) {
    if (!r.is_object() || !r.contains("replica") || !r["replica"].is_string() ||
        !r.contains("gpus") || !r["gpus"].is_array()) {
      return bad();
    }
    ReplicaPlacement p{r["replica"].get<std::string>(), {}};
    for (const nlohmann::json& s : r["gpus"]) {
      if (!s.is_object() || !s.contains("device") || !s["device"].is_string() ||
          !s.contains("millis") || !s["millis"].is_number_integer()) {
        return bad();
      }
      p.gpus.push_back({s["device"].get<std::string>(), s["millis"].get<int64_t>()});
    }
    placement.push_back(std::move(p));
  }
  return absl::OkStatus();
}

std::string VisibleDevices(const ReplicaPlacement& placement) {
  std::vector<std::string> ids;
  for (const GpuShare& s : placement.gpus) ids.push_back(s.device);
  return absl::StrJoin(ids, ",");
}

void ShowPlacement(JobRecord& record) {
  bool shared = false;
  for (JobReplica& r : record.job.replicas) {
    r.gpus.clear();
    for (const ReplicaPlacement& p : record.placement) {
      if (p.replica != r.name) continue;
      std::vector<std::string> parts;
      for (const GpuShare& s : p.gpus) {
        shared = shared || s.millis < 1000;
        parts.push_back(s.millis < 1000
                            ? absl::StrCat(s.device, " (", FormatGpuMillis(s.millis), ")")
                            : s.device);
      }
      r.gpus = absl::StrJoin(parts, ",");
    }
  }
  if (!shared) record.job.gpu_sharing.clear();
}

}  // namespace dlp::server
