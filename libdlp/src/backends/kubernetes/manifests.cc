// RenderManifests: the group file's ConfigMap, the headless Service that gives
// the pods stable host names, and the flavour's workload.
#include "backends/kubernetes/manifests.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "backends/kubernetes/render_input.h"
#include "contract/group.h"
#include "job/job_group.h"
#include "spec/rules.h"

namespace dlp::internal::k8s {
namespace {

constexpr const char* kFlavours = "jobset, job, trainjob, volcano";

// The group every pod reads. The workload restarts the whole gang (a JobSet
// restart, a Volcano RestartJob, the Job's backoff), so the ranks inside a pod
// are never restarted by dlp-run as well.
Json GroupConfigMap(const RenderInput& in) {
  contract::Group group = JobGroup(in.spec);
  group.restart_policy = contract::RestartPolicy::kNever;
  group.max_restarts = 0;
  group.backoff = absl::ZeroDuration();
  Json map = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
  map["metadata"] = ObjectMeta(in, in.config_map);
  map["data"] = {{kGroupKey, contract::GroupToJson(group)}};
  return map;
}

// Headless, and listing pods before they are ready: rank 0's name must resolve
// while the ranks are still meeting.
Json HeadlessService(const RenderInput& in) {
  Json service = {{"apiVersion", "v1"}, {"kind", "Service"}};
  service["metadata"] = ObjectMeta(in, in.base);
  service["spec"] = {{"clusterIP", "None"},
                     {"publishNotReadyAddresses", true},
                     {"selector", {{kJobIdLabel, CommonLabels(in)[kJobIdLabel]}}}};
  return service;
}

absl::Status CheckOptions(const JobSpec& spec, const RenderOptions& options) {
  if (!options.job_id.empty()) {
    if (Problem p = CheckLabelValue(options.job_id)) {
      return absl::InvalidArgumentError(absl::StrCat("job id \"", options.job_id, "\": ", *p));
    }
  }
  if (Problem p = CheckLabelValue(options.queue); p || options.queue.size() > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        "queue \"", options.queue, "\": ", p ? *p : "at most 63 characters (a label value)"));
  }
  if (options.name_space.empty() || CheckJobName(options.name_space)) {
    return absl::InvalidArgumentError(absl::StrCat("namespace \"", options.name_space,
                                                   "\": must be a DNS label such as ml-team"));
  }
  if (!options.output_claim.empty() && CheckJobName(options.output_claim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output-claim \"", options.output_claim,
        "\": must name a PersistentVolumeClaim in the namespace, such as dlp-outputs"));
  }
  if (spec.image.empty() && options.image.empty()) {
    return absl::InvalidArgumentError(
        "spec.image: no container image; set spec.image in the job spec or the context's image "
        "field (dlp config set-context NAME --field image=REGISTRY/IMAGE:TAG); the image must "
        "contain dlp-run (docs/kubernetes.md)");
  }
  if (options.gpu_resource.empty()) {
    return absl::InvalidArgumentError("gpu-resource: must name a resource such as nvidia.com/gpu");
  }
  for (const ReplicaSpec& role : spec.replicas) {
    if (role.resources.gpu_type.empty()) continue;
    const std::string value = GpuTypeLabelValue(role.resources.gpu_type);
    if (Problem p = CheckLabelValue(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.replicas.", role.role, ".resources.gpuType \"", role.resources.gpu_type,
          "\": the Kubernetes backend selects nodes by the label ", options.gpu_type_label,
          ": ", *p));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<nlohmann::json>> RenderManifests(const JobSpec& spec,
                                                            const RenderOptions& options) {
  if (absl::Status s = WorkloadResourceOf(options.flavour).status(); !s.ok()) return s;
  if (absl::Status s = CheckOptions(spec, options); !s.ok()) return s;
  RenderInput in{spec, options};
  in.base = BaseName(spec.name, options.job_id);
  in.config_map = absl::StrCat(in.base, "-group");
  in.image = spec.image.empty() ? options.image : spec.image;
  if (spec.priority != 0) in.priority_class = PriorityClassName(spec.priority);

  absl::StatusOr<Json> workload;
  if (options.flavour == "jobset") {
    workload = JobSetWorkload(in);
  } else if (options.flavour == "job") {
    workload = BatchJobWorkload(in);
  } else if (options.flavour == "trainjob") {
    workload = TrainJobWorkload(in);
  } else {
    workload = VolcanoJobWorkload(in);
  }
  if (!workload.ok()) return workload.status();
  return std::vector<Json>{GroupConfigMap(in), HeadlessService(in), *std::move(workload)};
}

absl::StatusOr<WorkloadResource> WorkloadResourceOf(const std::string& flavour) {
  if (flavour == "jobset")
    return WorkloadResource{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"};
  if (flavour == "job") return WorkloadResource{"batch", "v1", "jobs", "Job"};
  if (flavour == "trainjob") {
    return WorkloadResource{"trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob"};
  }
  if (flavour == "volcano") return WorkloadResource{"batch.volcano.sh", "v1alpha1", "jobs", "Job"};
  return absl::InvalidArgumentError(
      absl::StrCat("flavour \"", flavour, "\": unknown; expected one of: ", kFlavours));
}

}  // namespace dlp::internal::k8s
