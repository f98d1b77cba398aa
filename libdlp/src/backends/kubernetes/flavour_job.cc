// flavour job: a single-role job as one batch/v1 Indexed Job of `count` pods
// (parallelism = completions = count). Kubernetes names pod i BASE-i; the pod
// template's subdomain puts it under the headless Service BASE. Restarts are
// the Job's: backoffLimit = maxRestarts failed pods.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/kubernetes/render_input.h"

namespace dlp::internal::k8s {

absl::StatusOr<Json> BatchJobWorkload(const RenderInput& in) {
  if (in.spec.replicas.size() != 1) {
    std::vector<std::string> roles;
    for (const ReplicaSpec& r : in.spec.replicas) roles.push_back(r.role);
    return absl::InvalidArgumentError(
        absl::StrCat("spec.replicas: the job flavour runs a single role, this spec has ",
                     absl::StrJoin(roles, ", "), "; use the jobset flavour for several roles"));
  }
  const ReplicaSpec& role = in.spec.replicas[0];
  const std::string pattern = absl::StrCat(in.base, "-{index}.", in.base);
  const RestartPolicy& restart = in.spec.restart_policy;
  Json spec = {
      {"completionMode", "Indexed"},
      {"completions", role.count},
      {"parallelism", role.count},
      {"backoffLimit", restart.policy == RestartPolicyKind::kNever ? 0 : restart.max_restarts},
      {"template", RolePodTemplate(in, role, pattern, in.base)},
  };
  if (restart.policy == RestartPolicyKind::kExitCode) {
    spec["podFailurePolicy"] = ExitCodePodFailurePolicy();
  }
  if (in.spec.active_deadline_seconds > 0) {
    spec["activeDeadlineSeconds"] = in.spec.active_deadline_seconds;
  }
  Json workload = {{"apiVersion", "batch/v1"}, {"kind", "Job"}};
  workload["metadata"] = ObjectMeta(in, in.base);
  if (AddKueueLabels(in, workload["metadata"])) spec["suspend"] = true;
  workload["spec"] = spec;
  return workload;
}

}  // namespace dlp::internal::k8s
