#include "server/store/placement_codec.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace dlp::server {

namespace {

nlohmann::ordered_json ReplicasJson(const std::vector<ReplicaPlacement>& placement) {
  nlohmann::ordered_json replicas = nlohmann::ordered_json::array();
  for (const ReplicaPlacement& p : placement) {
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (const GpuShare& s : p.gpus) gpus.push_back({{"device", s.device}, {"millis", s.millis}});
    replicas.push_back({{"replica", p.replica}, {"gpus", std::move(gpus)}});
  }
  return replicas;
}

nlohmann::ordered_json PlacementObject(const std::vector<ReplicaPlacement>& placement,
                                       const std::string& sharing) {
  nlohmann::ordered_json j;
  j["sharing"] = sharing;
  j["replicas"] = ReplicasJson(placement);
  return j;
}

absl::Status ReplicasFromJson(const nlohmann::json& replicas,
                              std::vector<ReplicaPlacement>& placement) {
  auto bad = [] { return absl::InvalidArgumentError("the stored GPU placement is malformed"); };
  if (!replicas.is_array()) return bad();
  for (const nlohmann::json& r : replicas) {
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

}  // namespace

std::string PlacementToJson(const std::vector<ReplicaPlacement>& placement,
                            const std::string& sharing) {
  if (placement.empty()) return "";
  return PlacementObject(placement, sharing).dump();
}

absl::Status PlacementFromJson(const std::string& text, std::vector<ReplicaPlacement>& placement,
                               std::string& sharing) {
  placement.clear();
  sharing.clear();
  if (text.empty()) return absl::OkStatus();
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("replicas")) {
    return absl::InvalidArgumentError("the stored GPU placement is malformed");
  }
  if (j.contains("sharing") && j["sharing"].is_string()) sharing = j["sharing"];
  return ReplicasFromJson(j["replicas"], placement);
}

std::string StoredPlacement(const JobRecord& r) {
  if (r.job.size == 0 && r.resize_to == 0) return PlacementToJson(r.placement, r.job.gpu_sharing);
  nlohmann::ordered_json j = PlacementObject(r.placement, r.job.gpu_sharing);
  j["elastic"] = {{"size", r.job.size},
                  {"resizes", r.job.resizes},
                  {"resizeTo", r.resize_to},
                  {"resizeReason", r.resize_reason},
                  {"resizePlacement", ReplicasJson(r.resize_placement)},
                  {"reforming", r.reforming},
                  {"resizedUs", absl::ToUnixMicros(r.resized)}};
  return j.dump();
}

void ReadStoredPlacement(const std::string& text, JobRecord& r) {
  if (!PlacementFromJson(text, r.placement, r.job.gpu_sharing).ok()) r.placement.clear();
  if (text.empty()) return;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("elastic") || !j["elastic"].is_object()) return;
  const nlohmann::json& e = j["elastic"];
  auto integer = [&](const char* key) -> int64_t {
    return e.contains(key) && e[key].is_number_integer() ? e[key].get<int64_t>() : 0;
  };
  // The store is dlpd's own; the bounds only keep a damaged row harmless.
  r.job.size = static_cast<int>(std::clamp<int64_t>(integer("size"), 0, 1 << 20));
  r.job.resizes = static_cast<int>(std::clamp<int64_t>(integer("resizes"), 0, 1 << 30));
  r.resize_to = static_cast<int>(std::clamp<int64_t>(integer("resizeTo"), 0, 1 << 20));
  r.resized = absl::FromUnixMicros(integer("resizedUs"));
  if (e.contains("resizeReason") && e["resizeReason"].is_string()) {
    r.resize_reason = e["resizeReason"].get<std::string>();
  }
  r.reforming =
      e.contains("reforming") && e["reforming"].is_boolean() && e["reforming"].get<bool>();
  r.resize_placement.clear();
  if (e.contains("resizePlacement") &&
      !ReplicasFromJson(e["resizePlacement"], r.resize_placement).ok()) {
    r.resize_placement.clear();
  }
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
      r.gpus = p.gpus;
      for (const GpuShare& s : p.gpus) shared = shared || s.millis < 1000;
    }
  }
  if (!shared) record.job.gpu_sharing.clear();
}

}  // namespace dlp::server
