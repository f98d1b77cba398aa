// The monitoring calls of the dlpd API backend: trace files and usage samples.
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "backends/api/api_backend.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

absl::StatusOr<nlohmann::json> ParseReply(const std::string& reply, const char* what) {
  nlohmann::json j = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return absl::InternalError(absl::StrCat("dlpd sent a malformed ", what, " reply"));
  }
  return j;
}

}  // namespace

absl::StatusOr<std::vector<TraceFile>> ApiBackend::TraceFiles(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       GetBody(absl::StrCat("/v1/jobs/", UrlEncode(id), "/traces")));
  DLP_ASSIGN_OR_RETURN(nlohmann::json j, ParseReply(reply, "traces"));
  std::vector<TraceFile> files;
  if (!j.contains("files") || !j["files"].is_array()) return files;
  for (const nlohmann::json& f : j["files"]) {
    if (!f.is_object()) continue;
    files.push_back({f.value("name", ""), f.value("content", "")});
  }
  return files;
}

absl::StatusOr<std::vector<ReplicaUsage>> ApiBackend::Usage(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       GetBody(absl::StrCat("/v1/jobs/", UrlEncode(id), "/usage")));
  DLP_ASSIGN_OR_RETURN(nlohmann::json j, ParseReply(reply, "usage"));
  std::vector<ReplicaUsage> out;
  if (!j.contains("replicas") || !j["replicas"].is_array()) return out;
  for (const nlohmann::json& r : j["replicas"]) {
    if (!r.is_object()) continue;
    ReplicaUsage u;
    u.replica = r.value("replica", "");
    u.pid = r.value("pid", 0);
    u.cpu_percent = r.value("cpuPercent", 0.0);
    u.rss_bytes = r.value("rssBytes", int64_t{0});
    if (r.contains("gpuUtilPercent") && r["gpuUtilPercent"].is_number()) {
      u.gpu_util_percent = r["gpuUtilPercent"].get<double>();
    }
    if (r.contains("gpuMemoryBytes") && r["gpuMemoryBytes"].is_number()) {
      u.gpu_memory_bytes = r["gpuMemoryBytes"].get<int64_t>();
    }
    std::string err;
    absl::ParseTime(absl::RFC3339_full, r.value("time", ""), &u.time, &err);
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace dlp::internal
