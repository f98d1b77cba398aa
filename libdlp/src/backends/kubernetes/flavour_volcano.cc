// flavour volcano: a Volcano Job (batch.volcano.sh/v1alpha1) with one task per
// role, gang-scheduled (minAvailable = every replica) in options.queue. The
// svc plugin names pod i of task r BASE-r-i under the headless Service BASE,
// the env plugin gives it VC_TASK_INDEX. Restarts: RestartJob on a failed pod,
// up to maxRetry. successPolicy of one role: that task's TaskCompleted
// completes the job.
#include "absl/strings/str_cat.h"
#include "backends/kubernetes/render_input.h"

namespace dlp::internal::k8s {

absl::StatusOr<Json> VolcanoJobWorkload(const RenderInput& in) {
  const RestartPolicy& restart = in.spec.restart_policy;
  if (restart.policy == RestartPolicyKind::kExitCode) {
    return absl::InvalidArgumentError(
        "spec.restartPolicy.policy: Volcano matches single exit codes only, not ExitCode's "
        "128-255; use OnFailure or the jobset flavour");
  }
  const std::string pattern = absl::StrCat(in.base, "-{role}-{index}.", in.base);
  const std::vector<std::string>& success_roles = in.spec.success_policy.roles;
  Json tasks = Json::array();
  int total = 0;
  for (const ReplicaSpec& role : in.spec.replicas) {
    total += role.count;
    Json pod = RolePodTemplate(in, role, pattern);
    // Volcano sets the scheduler and the priority on the job, not the pods.
    pod["spec"].erase("priorityClassName");
    tasks.push_back({{"name", role.role}, {"replicas", role.count}, {"template", pod}});
    // One success role: Volcano completes the job when that task has (its
    // TaskCompleted is per task, so two roles would mean "any", not "all";
    // then dlp-run's rank 0 alone decides, as in the other flavours).
    if (success_roles.size() == 1 && success_roles[0] == role.role) {
      tasks.back()["policies"] = {{{"event", "TaskCompleted"}, {"action", "CompleteJob"}}};
    }
    if (in.spec.active_deadline_seconds > 0) {
      tasks.back()["template"]["spec"]["activeDeadlineSeconds"] = in.spec.active_deadline_seconds;
    }
  }
  Json spec = {
      {"schedulerName", "volcano"},
      {"minAvailable", total},
      {"plugins", {{"svc", Json::array()}, {"env", Json::array()}}},
      {"tasks", tasks},
  };
  if (restart.policy == RestartPolicyKind::kOnFailure) {
    spec["maxRetry"] = restart.max_restarts;
    spec["policies"] = {{{"event", "PodFailed"}, {"action", "RestartJob"}}};
  } else {
    spec["policies"] = {{{"event", "PodFailed"}, {"action", "TerminateJob"}}};
  }
  if (!in.options.queue.empty()) spec["queue"] = in.options.queue;
  if (!in.priority_class.empty()) spec["priorityClassName"] = in.priority_class;
  Json workload = {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}};
  workload["metadata"] = ObjectMeta(in, in.base);
  workload["spec"] = spec;
  return workload;
}

}  // namespace dlp::internal::k8s
