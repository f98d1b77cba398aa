// flavour trainjob: a Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/
// v1alpha1, the v2.3 API) against the ClusterTrainingRuntime named by
// options.training_runtime (TrainingRuntime/NAME: the namespaced kind). The runtime's JobSet runs
// `numNodes` pods of its "node" replicated Job (container "node"), so one role only; a runtime
// patch mounts the group file. Restarts are the runtime's failurePolicy.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/kubernetes/render_input.h"

namespace dlp::internal::k8s {
namespace {

// The replicated Job and container of Trainer's torch/mpi runtimes.
constexpr char kNode[] = "node";
constexpr char kPatchManager[] = "dlp.dev/dlp";
constexpr char kNamespacedPrefix[] = "TrainingRuntime/";

}  // namespace

absl::StatusOr<Json> TrainJobWorkload(const RenderInput& in) {
  if (in.options.training_runtime.empty()) {
    return absl::InvalidArgumentError(
        "training-runtime: the trainjob flavour needs the name of a ClusterTrainingRuntime "
        "(--field training-runtime=torch-distributed)");
  }
  if (in.spec.replicas.size() != 1) {
    std::vector<std::string> roles;
    for (const ReplicaSpec& r : in.spec.replicas) roles.push_back(r.role);
    return absl::InvalidArgumentError(
        absl::StrCat("spec.replicas: a TrainJob runs a single role (numNodes), this spec has ",
                     absl::StrJoin(roles, ", "), "; use the jobset flavour for several roles"));
  }
  if (in.spec.restart_policy.policy != RestartPolicyKind::kNever) {
    return absl::InvalidArgumentError(
        "spec.restartPolicy.policy: a TrainJob restarts as its TrainingRuntime's failurePolicy "
        "says; leave the policy Never here or use the jobset flavour");
  }
  std::string runtime_kind = "ClusterTrainingRuntime";
  std::string runtime_name = in.options.training_runtime;
  if (absl::StartsWith(runtime_name, kNamespacedPrefix)) {
    runtime_kind = "TrainingRuntime";
    runtime_name.erase(0, sizeof(kNamespacedPrefix) - 1);
  }
  const ReplicaSpec& role = in.spec.replicas[0];
  const std::string pattern = absl::StrCat(in.base, "-", kNode, "-0-{index}.", in.base);
  const Json container = RoleContainer(in, role, pattern, kNode);
  Json trainer = {
      {"image", container["image"]},
      {"command", container["command"]},
      {"env", container["env"]},
      {"numNodes", role.count},
      {"resourcesPerNode", container["resources"]},
  };
  Json pod_spec = {
      {"volumes", PodVolumes(in)},
      {"containers", {{{"name", kNode}, {"volumeMounts", PodVolumeMounts(in)}}}},
  };
  AddGpuTypeSelector(in, role, pod_spec);
  // The labels put the pods behind the headless Service BASE (which the
  // runtime's JobSet then uses instead of creating its own).
  Json labels = CommonLabels(in);
  labels[kRoleLabel] = role.role;
  Json pod = {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}};
  Json job = {{"name", kNode}, {"template", {{"spec", {{"template", pod}}}}}};
  Json spec = {
      {"runtimeRef",
       {{"apiGroup", "trainer.kubeflow.org"}, {"kind", runtime_kind}, {"name", runtime_name}}},
      {"trainer", trainer},
      {"runtimePatches",
       {{{"manager", kPatchManager},
         {"trainingRuntimeSpec", {{"template", {{"spec", {{"replicatedJobs", {job}}}}}}}}}}},
  };
  if (in.spec.active_deadline_seconds > 0) {
    spec["activeDeadlineSeconds"] = in.spec.active_deadline_seconds;
  }
  Json workload = {{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainJob"}};
  workload["metadata"] = ObjectMeta(in, in.base);
  if (AddKueueLabels(in, workload["metadata"])) spec["suspend"] = true;
  workload["spec"] = spec;
  return workload;
}

}  // namespace dlp::internal::k8s
