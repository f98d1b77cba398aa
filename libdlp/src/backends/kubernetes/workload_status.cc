// The workload kinds' own notion of done: JobSet (Completed/Failed/Suspended),
// batch Job (Complete/Failed/Suspended), TrainJob (Complete/Failed/Suspended)
// conditions, and Volcano's status.state.phase.
#include "absl/strings/str_cat.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/status_mapping.h"

namespace dlp::internal::k8s {
namespace {

std::string Because(const nlohmann::json& condition) {
  const std::string reason = Str(condition, "reason"), message = Str(condition, "message");
  if (reason.empty()) return message;
  return message.empty() ? reason : absl::StrCat(reason, ": ", message);
}

WorkloadStatus FromConditions(const nlohmann::json& workload, const char* succeeded) {
  WorkloadStatus status;
  for (const auto& [type, phase] : {std::pair{succeeded, WorkloadPhase::kSucceeded},
                                    std::pair{"Failed", WorkloadPhase::kFailed}}) {
    if (ConditionTrue(workload, type)) {
      status.phase = phase;
      status.reason = Because(Condition(workload, type));
      status.finished = TimeAt(Condition(workload, type), "lastTransitionTime");
      return status;
    }
  }
  if (ConditionTrue(workload, "Suspended") || At(workload, "spec/suspend") == true) {
    status.phase = WorkloadPhase::kSuspended;
    status.reason = Because(Condition(workload, "Suspended"));
  }
  return status;
}

WorkloadStatus FromVolcanoPhase(const nlohmann::json& workload) {
  WorkloadStatus status;
  const std::string phase = Str(workload, "status/state/phase");
  const std::string why = Str(workload, "status/state/message");
  status.reason = why.empty() ? phase : absl::StrCat(phase, ": ", why);
  if (phase == "Completed") {
    status.phase = WorkloadPhase::kSucceeded;
  } else if (phase == "Failed" || phase == "Terminated" || phase == "Aborted") {
    status.phase = WorkloadPhase::kFailed;
  } else if (phase == "Running" || phase == "Restarting" || phase == "Completing") {
    status.phase = WorkloadPhase::kRunning;
  }
  if (status.phase == WorkloadPhase::kSucceeded || status.phase == WorkloadPhase::kFailed) {
    status.finished = TimeAt(workload, "status/state/lastTransitionTime");
  }
  return status;
}

}  // namespace

WorkloadStatus WorkloadStatusOf(const nlohmann::json& workload) {
  const std::string kind = Str(workload, "kind");
  if (kind == "JobSet") return FromConditions(workload, "Completed");
  if (kind == "Job" && Str(workload, "apiVersion") == "batch.volcano.sh/v1alpha1") {
    return FromVolcanoPhase(workload);
  }
  return FromConditions(workload, "Complete");  // batch/v1 Job, TrainJob
}

}  // namespace dlp::internal::k8s
