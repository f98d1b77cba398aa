// ParsePipelineSpec: a kind: Pipeline document. Each spec.jobs.NAME is
// decoded as a job's `spec` by the job decoder (its problems reported under
// spec.jobs.NAME), then the graph is checked with the positions of the
// dependsOn entries.
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings/string_view_compat.h"
#include "dlp/pipeline.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "spec/decoder.h"
#include "spec/document.h"
#include "spec/field_names.h"
#include "spec/pipeline_graph.h"
#include "spec/reader.h"
#include "spec/rules.h"

namespace dlp {
namespace {

using internal::kMetadataFields;
using internal::kTopFields;
constexpr absl::string_view kPipelineFields[] = {"jobs"};

bool IsStdin(absl::string_view filename) { return filename.empty() || filename == "-"; }

class PipelineDecoder {
 public:
  PipelineDecoder(internal::Diagnostics& diagnostics, std::string base_dir)
      : diagnostics_(diagnostics), r_(diagnostics), base_dir_(std::move(base_dir)) {}

  PipelineSpec Decode(const YAML::Node& root) {
    PipelineSpec spec;
    if (!r_.CheckMap(root, "", "a pipeline (a map with apiVersion, kind, metadata and spec)",
                     kTopFields)) {
      return spec;
    }
    Metadata(root, spec);
    const YAML::Node body = internal::YamlReader::Child(root, "spec");
    if (!internal::YamlReader::Present(body)) {
      r_.Required(root, "", "spec", kTopFields, "required; a pipeline needs spec.jobs");
      return spec;
    }
    if (!r_.CheckMap(body, "spec", "a map with jobs", kPipelineFields)) return spec;
    const YAML::Node jobs = internal::YamlReader::Child(body, "jobs");
    if (!internal::YamlReader::Present(jobs)) {
      r_.Required(body, "spec", "jobs", kPipelineFields,
                  "required; e.g. jobs: {prep: {replicas: ...}, train: {dependsOn: [{job: prep}], "
                  "replicas: ...}}");
      return spec;
    }
    if (!jobs.IsMap()) {
      r_.Report(
          jobs, "spec.jobs",
          absl::StrCat("expected a map of job names to job specs, got ", internal::Describe(jobs)));
      return spec;
    }
    if (jobs.size() == 0) r_.Report(jobs, "spec.jobs", "needs at least one job");
    if (jobs.size() > static_cast<size_t>(kMaxPipelineJobs)) {
      r_.Report(jobs, "spec.jobs", absl::StrCat(jobs.size(), " jobs; at most ", kMaxPipelineJobs));
      return spec;
    }
    for (auto it = jobs.begin(); it != jobs.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      if (!key.IsScalar()) {
        r_.Report(key, "spec.jobs", "expected a job name as key");
        continue;
      }
      Job(key, value, spec);
    }
    return spec;
  }

  // Where each job's dependsOn entries are (for the cycle check).
  std::map<std::string, YAML::Node> depends_on_nodes;

 private:
  void Metadata(const YAML::Node& root, PipelineSpec& spec) {
    if (YAML::Node kind = internal::YamlReader::Child(root, "apiVersion");
        internal::YamlReader::Present(kind)) {
      if (auto v = r_.String(kind, "apiVersion"); v && *v != internal::kApiVersion) {
        r_.Report(kind, "apiVersion",
                  absl::StrCat("\"", *v, "\" is not supported; expected ", internal::kApiVersion));
      }
    } else {
      r_.Required(root, "", "apiVersion", kTopFields, "required; expected apiVersion: dlp/v1");
    }
    const YAML::Node meta = internal::YamlReader::Child(root, "metadata");
    if (!internal::YamlReader::Present(meta)) {
      r_.Required(root, "", "metadata", kTopFields, "metadata.name is required");
      return;
    }
    if (!r_.CheckMap(meta, "metadata", "a map", kMetadataFields)) return;
    const YAML::Node name = internal::YamlReader::Child(meta, "name");
    if (!internal::YamlReader::Present(name)) {
      r_.Required(meta, "metadata", "name", kMetadataFields, "required; a pipeline needs a name");
    } else if (auto v = r_.String(name, "metadata.name")) {
      if (r_.Check(name, "metadata.name", internal::CheckJobName(*v))) spec.name = *v;
    }
    labels_ = internal::YamlReader::Child(meta, "labels");
  }

  void Job(const YAML::Node& key, const YAML::Node& value, PipelineSpec& spec) {
    const std::string name = key.Scalar();
    const std::string path = absl::StrCat("spec.jobs.", name);
    if (!r_.Check(key, path, internal::CheckJobName(name))) return;
    // The job's own name: "PIPELINE-JOB", itself a job name.
    std::string job_name = spec.name.empty() ? name : absl::StrCat(spec.name, "-", name);
    if (internal::Problem p = internal::CheckJobName(job_name)) {
      r_.Report(key, path, absl::StrCat("the job's name ", job_name, ": ", *p));
      job_name = "x";
    }
    // A job document around the node, so that the job decoder reads it as
    // it reads any job (positions are the nodes' own).
    YAML::Node job;
    job["apiVersion"] = std::string(internal::kApiVersion);
    job["kind"] = std::string(internal::kKind);
    YAML::Node meta;
    meta["name"] = job_name;
    if (internal::YamlReader::Present(labels_)) meta["labels"] = labels_;
    job["metadata"] = meta;
    job["spec"] = value;
    diagnostics_.set_path_prefix("spec", path);
    internal::DecodeOptions options{.name = "", .base_dir = base_dir_};
    JobSpec decoded = internal::DecodeJobSpec(job, options, diagnostics_);
    diagnostics_.set_path_prefix("", "");
    if (value.IsMap()) depends_on_nodes[name] = internal::YamlReader::Child(value, "dependsOn");
    spec.jobs.push_back({name, std::move(decoded)});
  }

  internal::Diagnostics& diagnostics_;
  internal::YamlReader r_;
  std::string base_dir_;
  YAML::Node labels_;
};

// Sibling names, cycles and output references, at the dependsOn entries'
// positions when known.
void CheckGraph(const PipelineSpec& spec, const PipelineDecoder& decoder,
                internal::Diagnostics& diagnostics) {
  internal::CycleEdge cycle;
  if (!internal::OrderPipelineJobs(spec, &cycle).ok()) {
    const std::string& job = spec.jobs[cycle.job].name;
    const std::string path = absl::StrCat("spec.jobs.", job, ".dependsOn[", cycle.dependency, "]");
    const std::string message =
        absl::StrCat("a cycle: ", cycle.cycle, " (each waits for the next)");
    auto node = decoder.depends_on_nodes.find(job);
    if (node != decoder.depends_on_nodes.end() && node->second.IsSequence() &&
        cycle.dependency < node->second.size()) {
      diagnostics.Add(node->second[cycle.dependency].Mark(), path, message);
    } else {
      diagnostics.AddPlain(absl::StrCat(diagnostics.filename(), ": ", path, ": ", message));
    }
    return;
  }
  // Everything else (unknown siblings, references) without positions but
  // with its field path.
  absl::Status rest = ValidatePipelineSpec(spec);
  if (rest.ok()) return;
  for (absl::string_view line : absl::StrSplit(rest.message(), '\n')) {
    diagnostics.AddPlain(absl::StrCat(diagnostics.filename(), ": ", line));
  }
}

absl::StatusOr<PipelineSpec> Parse(absl::string_view yaml, absl::string_view filename) {
  const std::string shown = IsStdin(filename) ? "<stdin>" : std::string(filename);
  internal::Diagnostics diagnostics(shown);
  std::optional<YAML::Node> root =
      internal::LoadSpecDocument(yaml, {}, "a pipeline spec", diagnostics);
  if (!root) return diagnostics.ToStatus();
  PipelineDecoder decoder(diagnostics, internal::SpecBaseDir(filename));
  PipelineSpec spec = decoder.Decode(*root);
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  // A sibling named in dependsOn that does not exist is reported at its entry.
  std::map<std::string, bool> names;
  for (const PipelineJobSpec& job : spec.jobs) names[job.name] = true;
  for (const PipelineJobSpec& job : spec.jobs) {
    const YAML::Node deps = decoder.depends_on_nodes[job.name];
    for (size_t d = 0; d < job.spec.depends_on.size(); ++d) {
      if (names.contains(job.spec.depends_on[d].job)) continue;
      std::vector<std::string> siblings;
      for (const auto& [n, unused] : names) siblings.push_back(n);
      const std::string path = absl::StrCat("spec.jobs.", job.name, ".dependsOn[", d, "].job");
      const std::string message =
          absl::StrCat("no job ", job.spec.depends_on[d].job,
                       " in this pipeline (its jobs: ", absl::StrJoin(siblings, ", "), ")");
      if (deps.IsSequence() && d < deps.size()) {
        diagnostics.Add(deps[d]["job"].Mark(), path, message);
      } else {
        diagnostics.AddPlain(absl::StrCat(shown, ": ", path, ": ", message));
      }
    }
  }
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  CheckGraph(spec, decoder, diagnostics);
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  return spec;
}

}  // namespace

absl::StatusOr<PipelineSpec> ParsePipelineSpec(std::string_view yaml, std::string_view filename) {
  const absl::string_view name = base::ToAbsl(filename);
  try {
    return Parse(base::ToAbsl(yaml), name);
  } catch (const std::exception& e) {  // yaml-cpp throws on unexpected node shapes
    return absl::InvalidArgumentError(
        absl::StrCat(IsStdin(name) ? "<stdin>" : name, ": ", e.what()));
  }
}

absl::StatusOr<PipelineSpec> LoadPipelineSpec(const std::string& path) {
  DLP_ASSIGN_OR_RETURN(std::string text, ReadSpecFile(path));
  return ParsePipelineSpec(text, path);
}

absl::StatusOr<std::string> SpecKind(std::string_view yaml, std::string_view filename) {
  const std::string shown = IsStdin(base::ToAbsl(filename)) ? "<stdin>" : std::string(filename);
  internal::Diagnostics diagnostics(shown);
  try {
    std::optional<YAML::Node> root =
        internal::LoadSpecDocument(base::ToAbsl(yaml), {}, "a spec", diagnostics);
    if (!root) return diagnostics.ToStatus();
    if (root->IsMap()) {
      const YAML::Node kind = internal::YamlReader::Child(*root, "kind");
      if (kind.IsScalar()) return kind.Scalar();
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(shown, ": ", e.what()));
  }
  return std::string(internal::kKind);  // the job decoder says what is missing
}

}  // namespace dlp
