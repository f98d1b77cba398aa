// flavour jobset: one JobSet (jobset.x-k8s.io/v1alpha2) with one replicated
// Job per role, each an Indexed Job of `count` pods. JobSet gives pod i of
// role r the host name BASE-r-0-i under the headless Service BASE, and
// restarts the whole set up to failurePolicy.maxRestarts times. successPolicy:
// JobSet's own (operator All over the named roles' replicated Jobs).
#include "absl/strings/str_cat.h"
#include "backends/kubernetes/render_input.h"

namespace dlp::internal::k8s {

absl::StatusOr<Json> JobSetWorkload(const RenderInput& in) {
  const std::string pattern = absl::StrCat(in.base, "-{role}-0-{index}.", in.base);
  const RestartPolicy& restart = in.spec.restart_policy;
  const bool exit_code = restart.policy == RestartPolicyKind::kExitCode;
  Json replicated = Json::array();
  for (const ReplicaSpec& role : in.spec.replicas) {
    Json job_spec = {
        {"completionMode", "Indexed"},
        {"completions", role.count},
        {"parallelism", role.count},
        // A failed pod fails its Job at once; the JobSet then restarts or fails.
        {"backoffLimit", 0},
        {"template", RolePodTemplate(in, role, pattern)},
    };
    if (in.spec.active_deadline_seconds > 0) {
      job_spec["activeDeadlineSeconds"] = in.spec.active_deadline_seconds;
    }
    if (exit_code) job_spec["podFailurePolicy"] = ExitCodePodFailurePolicy();
    replicated.push_back(
        {{"name", role.role},
         {"replicas", 1},
         {"template", {{"metadata", {{"labels", CommonLabels(in)}}}, {"spec", job_spec}}}});
  }
  Json spec = {
      {"network",
       {{"enableDNSHostnames", true}, {"subdomain", in.base}, {"publishNotReadyAddresses", true}}},
      {"replicatedJobs", replicated},
  };
  // The JobSet completes once every Job of these roles has (and stops the
  // rest), as dlp-run's rank 0 decides inside the pods (docs/kubernetes.md).
  if (!in.spec.success_policy.roles.empty()) {
    spec["successPolicy"] = {{"operator", "All"},
                             {"targetReplicatedJobs", in.spec.success_policy.roles}};
  }
  if (restart.policy != RestartPolicyKind::kNever) {
    spec["failurePolicy"] = {{"maxRestarts", restart.max_restarts}};
    if (exit_code) {
      // A Job failed by its podFailurePolicy (exit code 1-127) is not restarted.
      spec["failurePolicy"]["rules"] = {{{"name", "FailOnApplicationExitCode"},
                                         {"action", "FailJobSet"},
                                         {"onJobFailureReasons", {"PodFailurePolicy"}}}};
    }
  }
  Json workload = {{"apiVersion", "jobset.x-k8s.io/v1alpha2"}, {"kind", "JobSet"}};
  workload["metadata"] = ObjectMeta(in, in.base);
  if (AddKueueLabels(in, workload["metadata"])) spec["suspend"] = true;
  workload["spec"] = spec;
  return workload;
}

}  // namespace dlp::internal::k8s
