#include "backends/kubernetes/render.h"

#include "absl/strings/str_cat.h"
#include "backends/kubernetes/kubernetes_backend.h"
#include "codec/codec_internal.h"
#include "dlp/status.h"
#include "job/elastic_note.h"

namespace dlp::internal::k8s {

absl::StatusOr<RenderOptions> RenderOptionsFromContext(const Context& context) {
  RenderOptions options;
  options.flavour = context.Field("flavour", options.flavour);
  options.name_space = context.Field("namespace", options.name_space);
  options.queue = context.Field("queue");
  options.image = context.Field("image");
  options.gpu_resource = context.Field("gpu-resource", options.gpu_resource);
  options.gpu_type_label = context.Field("gpu-type-label", options.gpu_type_label);
  options.training_runtime = context.Field("training-runtime");
  options.dlp_run = context.Field("dlp-run", options.dlp_run);
  options.output_claim = context.Field("output-claim");
  if (absl::Status s = WorkloadResourceOf(options.flavour).status(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("context '", context.name, "': ", s.message()));
  }
  return options;
}

namespace {

// apiVersion, kind and metadata first, as kubectl shows objects; the rest
// (and every nested map) in nlohmann::json's sorted order.
OrderedJson KubernetesOrder(const nlohmann::json& object) {
  OrderedJson out = OrderedJson::object();
  for (const char* key : {"apiVersion", "kind", "metadata"}) {
    if (object.contains(key)) out[key] = OrderedJson::parse(object[key].dump());
  }
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!out.contains(it.key())) out[it.key()] = OrderedJson::parse(it.value().dump());
  }
  return out;
}

}  // namespace

std::string ManifestsToYaml(const std::vector<nlohmann::json>& objects) {
  std::string text;
  for (const nlohmann::json& object : objects) {
    absl::StrAppend(&text, "---\n", ToYaml(KubernetesOrder(object)));
  }
  return text;
}

std::string ManifestsToJson(const std::vector<nlohmann::json>& objects) {
  OrderedJson list = OrderedJson::array();
  for (const nlohmann::json& object : objects) list.push_back(KubernetesOrder(object));
  return list.dump(2) + "\n";
}

absl::StatusOr<std::vector<nlohmann::json>> KubernetesBackend::Manifests(
    const JobSpec& spec) const {
  RenderOptions render = options_.render;
  render.name_space = name_space_.empty() ? "default" : name_space_;
  // No job id: objects named after the job, as `dlp render` shows them.
  return RenderManifests(spec, render);
}

absl::StatusOr<std::string> KubernetesBackend::Render(const JobSpec& spec) {
  DLP_ASSIGN_OR_RETURN(std::vector<nlohmann::json> manifests, Manifests(spec));
  // JobSet's elastic replicated Jobs (kubernetes-sigs/jobset#463) are not in
  // its v1alpha2 API; nor do Job, Volcano or TrainJob resize a running gang.
  return RunsAtCountNote(spec,
                         "on Kubernetes, where no workload flavour resizes a running gang (JobSet "
                         "v1alpha2 has no elastic replicated Job)") +
         ManifestsToYaml(manifests);
}

absl::StatusOr<std::string> KubernetesBackend::RenderObjects(const JobSpec& spec) {
  DLP_ASSIGN_OR_RETURN(std::vector<nlohmann::json> manifests, Manifests(spec));
  return ManifestsToJson(manifests);
}

}  // namespace dlp::internal::k8s
