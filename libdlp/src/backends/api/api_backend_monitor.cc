// The monitoring calls of the dlpd API backend: trace files, usage samples,
// and the web UI's sign-in link.
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

namespace dlp::internal {

absl::StatusOr<UiSignInLink> ApiBackend::UiSignIn() {
  absl::StatusOr<std::string> reply = PostBody("/v1/ui/codes", "{}");
  // The server that answered (the local backend's dlpd may just have started).
  DLP_ASSIGN_OR_RETURN(std::shared_ptr<const HttpClient> http, connector_->Connect(false));
  std::string base = http->endpoint().url;
  if (absl::IsNotFound(reply.status())) {
    return absl::NotFoundError(
        absl::StrCat("the dlpd at ", base, " serves no web UI (it runs with --no-ui)"));
  }
  if (!reply.ok()) return reply.status();
  DLP_ASSIGN_OR_RETURN(nlohmann::json j, ParseReply(*reply, "sign-in code"));
  const std::string code = j.value("code", "");
  if (code.empty() || code.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InternalError("dlpd sent a malformed sign-in code");
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  return UiSignInLink{absl::StrCat(base, "/login?code=", code),
                      absl::Seconds(j.value("expiresInSeconds", 60))};
}

}  // namespace dlp::internal
