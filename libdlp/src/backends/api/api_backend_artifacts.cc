// The artifact and model calls of the dlpd API backend (docs/api.md):
// GET /v1/jobs/ID/artifacts[/PATH] and /v1/models.
#include "absl/strings/str_cat.h"
#include "backends/api/api_backend.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

// "a/b c.txt" -> "a/b%20c.txt": each component encoded, the slashes kept.
std::string EncodePath(std::string_view path) {
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    absl::StrAppend(&out, UrlEncode(path.substr(start, slash - start)));
    if (slash == std::string_view::npos) break;
    out.push_back('/');
    start = slash + 1;
  }
  return out;
}

// The owner names a tenant's model "TENANT/REF": the path takes REF and the
// query the tenant.
struct SplitRef {
  std::string ref;
  Query query;
};
SplitRef Split(std::string_view ref) {
  const size_t slash = ref.find('/');
  if (slash == std::string_view::npos) return {std::string(ref), {}};
  return {std::string(ref.substr(slash + 1)), {{"tenant", std::string(ref.substr(0, slash))}}};
}

}  // namespace

absl::StatusOr<std::vector<Artifact>> ApiBackend::Artifacts(std::string_view id,
                                                            std::string_view path) {
  Query query;
  if (!path.empty()) query.emplace_back("path", std::string(path));
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       GetBody(absl::StrCat("/v1/jobs/", UrlEncode(id), "/artifacts"), query));
  return ArtifactsFromJson(reply);
}

absl::Status ApiBackend::ReadArtifact(std::string_view id, std::string_view path,
                                      const ByteSink& sink) {
  return StreamBody(absl::StrCat("/v1/jobs/", UrlEncode(id), "/artifacts/", EncodePath(path)), {},
                    sink);
}

absl::StatusOr<ModelVersion> ApiBackend::RegisterModel(const ModelRegistration& reg) {
  nlohmann::json body = {{"name", reg.name}, {"job", reg.job}, {"path", reg.path}};
  if (!reg.alias.empty()) body["alias"] = reg.alias;
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/models", body.dump()));
  return ModelVersionFromJson(reply);
}

absl::StatusOr<std::vector<ModelVersion>> ApiBackend::ListModels() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/models"));
  return ModelVersionsFromJson(reply);
}

absl::StatusOr<ModelVersion> ApiBackend::GetModel(std::string_view ref) {
  const SplitRef split = Split(ref);
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       GetBody(absl::StrCat("/v1/models/", UrlEncode(split.ref)), split.query));
  return ModelVersionFromJson(reply);
}

absl::Status ApiBackend::ReadModel(std::string_view ref, const ByteSink& sink) {
  const SplitRef split = Split(ref);
  return StreamBody(absl::StrCat("/v1/models/", UrlEncode(split.ref), "/file"), split.query, sink);
}

absl::StatusOr<ModelVersion> ApiBackend::SetModelAlias(std::string_view name,
                                                       std::string_view alias, int version) {
  const SplitRef split = Split(name);
  std::string path = absl::StrCat("/v1/models/", UrlEncode(split.ref), "/aliases");
  if (!split.query.empty()) path += "?tenant=" + UrlEncode(split.query[0].second);
  const nlohmann::json body = {{"alias", std::string(alias)}, {"version", version}};
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody(path, body.dump()));
  return ModelVersionFromJson(reply);
}

}  // namespace dlp::internal
