// The JSON form of artifacts and model versions (dlp/artifacts.h).
#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/artifacts.h"
#include "dlp/status.h"

namespace dlp {
namespace {

using internal::Json;
using internal::OrderedJson;

OrderedJson ArtifactValue(const Artifact& a) {
  return OrderedJson{{"path", a.path},
                     {"size", a.size},
                     {"sha256", a.sha256},
                     {"mtime", internal::FormatApiTime(a.mtime)}};
}

absl::StatusOr<Artifact> ArtifactFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "artifact"));
  Artifact a;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "path", &a.path));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "size", &a.size));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "sha256", &a.sha256));
  DLP_RETURN_IF_ERROR(internal::ReadTime(value, path, "mtime", &a.mtime));
  return a;
}

OrderedJson ModelValue(const ModelVersion& m) {
  OrderedJson metrics = OrderedJson::object();
  for (const auto& [k, v] : m.metrics) metrics[k] = v;
  OrderedJson spec = nullptr;
  if (!m.job_spec.empty()) {
    spec = OrderedJson::parse(m.job_spec, nullptr, /*allow_exceptions=*/false);
    if (spec.is_discarded()) spec = nullptr;
  }
  return OrderedJson{{"name", m.name},
                     {"version", m.version},
                     {"file", m.file},
                     {"size", m.size},
                     {"sha256", m.sha256},
                     {"aliases", m.aliases},
                     {"job", m.job},
                     {"jobSpec", spec},
                     {"metrics", metrics},
                     {"labels", m.labels},
                     {"gitCommit", m.git_commit},
                     {"registeredBy", m.registered_by},
                     {"created", internal::FormatApiTime(m.created)}};
}

absl::StatusOr<ModelVersion> ModelFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "model"));
  ModelVersion m;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "name", &m.name));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "version", &m.version));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "file", &m.file));
  DLP_RETURN_IF_ERROR(internal::ReadInt(value, path, "size", &m.size));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "sha256", &m.sha256));
  DLP_RETURN_IF_ERROR(internal::ReadStringList(value, path, "aliases", &m.aliases));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "job", &m.job));
  if (auto it = value.find("jobSpec"); it != value.end() && !it->is_null()) {
    m.job_spec = it->dump();
  }
  if (auto it = value.find("metrics"); it != value.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (v.is_number()) m.metrics[k] = v.get<double>();
    }
  }
  DLP_RETURN_IF_ERROR(internal::ReadStringMap(value, path, "labels", &m.labels));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "gitCommit", &m.git_commit));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "registeredBy", &m.registered_by));
  DLP_RETURN_IF_ERROR(internal::ReadTime(value, path, "created", &m.created));
  return m;
}

}  // namespace

std::string ArtifactsToJson(const std::vector<Artifact>& artifacts, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const Artifact& a : artifacts) list.push_back(ArtifactValue(a));
  return internal::DumpJson(OrderedJson{{"artifacts", list}}, indent);
}

absl::StatusOr<std::vector<Artifact>> ArtifactsFromJson(std::string_view json) {
  return internal::ReadListing<Artifact>(json, "artifacts", "artifact list", ArtifactFromValue);
}

std::string ModelVersionToJson(const ModelVersion& model, int indent) {
  return internal::DumpJson(ModelValue(model), indent);
}

absl::StatusOr<ModelVersion> ModelVersionFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "model version"));
  return ModelFromValue(value, "model");
}

std::string ModelVersionsToJson(const std::vector<ModelVersion>& models, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const ModelVersion& m : models) list.push_back(ModelValue(m));
  return internal::DumpJson(OrderedJson{{"models", list}}, indent);
}

absl::StatusOr<std::vector<ModelVersion>> ModelVersionsFromJson(std::string_view json) {
  return internal::ReadListing<ModelVersion>(json, "models", "model list", ModelFromValue);
}

}  // namespace dlp
