// The dlp-job(5) document around a job spec: apiVersion, kind, metadata and
// spec, whose replicas are a map by role and whose env every replica shares.
// Checked here, then rewritten as the JSON form (name and labels aside, the
// roles a list in canonical order, spec.env merged into each replica's) that
// the one decoder reads (spec/decoder.cc), every value keeping its position.
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "spec/decoder.h"
#include "spec/field_names.h"
#include "spec/reader.h"
#include "spec/rules.h"
#include "spec/suggest.h"
#include "spec/yaml_json.h"

namespace dlp::internal {
namespace {

using Json = nlohmann::json;

// metadata.name (or --name) and metadata.labels.
void Metadata(const YAML::Node& root, const DecodeOptions& options, YamlReader& r,
              Diagnostics& diagnostics, JobSpec& spec) {
  const YAML::Node meta = YamlReader::Child(root, "metadata");
  if (YamlReader::Present(meta) && r.CheckMap(meta, "metadata", "a map", kMetadataFields)) {
    const YAML::Node name = YamlReader::Child(meta, "name");
    if (YamlReader::Present(name)) {
      if (auto v = r.String(name, "metadata.name")) spec.name = *v;
    }
    const YAML::Node labels = YamlReader::Child(meta, "labels");
    if (YamlReader::Present(labels)) {
      if (auto v = r.StringMap(labels, "metadata.labels", CheckLabelKey, CheckLabelValue);
          v && r.Check(labels, "metadata.labels", CheckLabelCount(v->size()))) {
        spec.labels = *v;
      }
    }
    if (options.name.empty() && YamlReader::Present(name)) {
      r.Check(name, "metadata.name", CheckJobName(spec.name));
    }
  }
  if (!options.name.empty()) {
    spec.name = options.name;
    if (Problem p = CheckJobName(spec.name)) diagnostics.AddPlain("--name: " + *p);
  } else if (spec.name.empty()) {
    if (YamlReader::Present(meta)) {
      r.Required(meta, "metadata", "name", kMetadataFields,
                 "required; a job needs a name (or pass --name)");
    } else {
      r.Required(root, "", "metadata", kTopFields,
                 "metadata.name is required; a job needs a name (or pass --name)");
    }
  }
}

// spec.env into each replica's env (the replica's own entries win), with the
// positions of spec.env's entries.
void MergeSharedEnv(const Json& shared, const std::string& replica_path, Json& replica,
                    Origins& origins) {
  if (!shared.is_object() || !replica.is_object()) return;
  Json& env = replica["env"];
  if (env.is_null()) env = Json::object();
  if (!env.is_object()) return;
  for (const auto& [key, value] : shared.items()) {
    if (env.contains(key)) continue;
    env[key] = value;
    origins[JoinPath(replica_path + ".env", key)] = origins[JoinPath("env", key)];
  }
}

// spec.replicas: a map of roles, as the JSON form's list in canonical order.
std::optional<Json> Replicas(const YAML::Node& node, const Json& shared_env, YamlReader& r,
                             Origins& origins, Diagnostics& diagnostics) {
  if (!r.CheckMap(node, "spec.replicas", "a map of roles (chief, ps, worker, evaluator)", kRoles,
                  "role")) {
    return std::nullopt;
  }
  Json list = Json::array();
  for (absl::string_view role : kRoles) {  // canonical order
    const YAML::Node n = YamlReader::Child(node, role);
    if (!YamlReader::Present(n)) continue;
    const std::string path = absl::StrCat("replicas[", list.size(), "]");
    const std::string shown = JoinPath("spec.replicas", role);
    Json replica = YamlToJson(n, path, shown, n.Mark(), origins, diagnostics);
    if (replica.is_object()) {
      if (replica.contains("role")) {  // the key is the role; a field "role" is not one
        const Origin& o = origins[path + ".role"];
        diagnostics.Add(o.key, o.path, UnknownKey("field", "role", kDocumentReplicaFields));
      }
      replica["role"] = std::string(role);
      origins[path + ".role"] = origins[path];
      MergeSharedEnv(shared_env, path, replica, origins);
    }
    list.push_back(std::move(replica));
  }
  return list;
}

// The JSON form of the map spec (its keys checked already).
Json SpecBody(const YAML::Node& body, YamlReader& r, Origins& origins,
              Diagnostics& diagnostics) {
  Json out = Json::object();
  origins[""] = Origin{body.Mark(), body.Mark(), "spec"};
  std::map<std::string, bool> seen;
  for (auto it = body.begin(); it != body.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar() || !seen.emplace(key.Scalar(), true).second) continue;
    const std::string& name = key.Scalar();
    bool known = false;
    for (absl::string_view f : kDocumentSpecFields) known = known || f == name;
    if (!known || name == "replicas" || name == "env") continue;
    out[name] = YamlToJson(it->second, name, JoinPath("spec", name), key.Mark(), origins,
                           diagnostics);
  }
  Json shared_env;
  if (const YAML::Node env = YamlReader::Child(body, "env"); YamlReader::Present(env)) {
    shared_env = YamlToJson(env, "env", "spec.env", env.Mark(), origins, diagnostics);
    if (!shared_env.is_object()) {
      r.Report(env, "spec.env",
               absl::StrCat("expected a map of names to strings, got ", Describe(env)));
    }
  }
  const YAML::Node replicas = YamlReader::Child(body, "replicas");
  if (!YamlReader::Present(replicas)) {
    r.Required(body, "spec", "replicas", kDocumentSpecFields,
               "required; e.g. replicas: {worker: {count: 2, command: [python3, train.py]}}");
  } else {
    origins["replicas"] = Origin{replicas.Mark(), replicas.Mark(), "spec.replicas"};
    if (auto list = Replicas(replicas, shared_env, r, origins, diagnostics)) {
      out["replicas"] = std::move(*list);
    }
  }
  return out;
}

}  // namespace

JobSpec DecodeJobSpec(const YAML::Node& root, const DecodeOptions& options,
                      Diagnostics& diagnostics) {
  YamlReader r(diagnostics);
  JobSpec spec;
  if (!r.Document(root, "a job spec", kKind)) return spec;
  JobSpec meta;
  Metadata(root, options, r, diagnostics, meta);
  if (const YAML::Node body =
          r.DocumentSpec(root, "required; a job needs spec.replicas", kDocumentSpecFields);
      body.IsDefined()) {
    Origins origins;
    const Json value = SpecBody(body, r, origins, diagnostics);
    SpecReader reader(&origins, "spec", diagnostics);
    spec = DecodeSpecValue(value, SpecShape{.document = true, .base_dir = options.base_dir},
                           reader, diagnostics);
  }
  spec.name = std::move(meta.name);
  spec.labels = std::move(meta.labels);
  return spec;
}

absl::StatusOr<JobSpec> DecodeJsonSpec(const Json& value, absl::string_view path,
                                       UnknownFields unknown) {
  Diagnostics diagnostics("");
  SpecReader reader(nullptr, std::string(path), diagnostics);
  reader.set_refuse_unknown(unknown == UnknownFields::kRefuse);
  JobSpec spec = DecodeSpecValue(value, SpecShape{}, reader, diagnostics);
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  return spec;
}

}  // namespace dlp::internal
