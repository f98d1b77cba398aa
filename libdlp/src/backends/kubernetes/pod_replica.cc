// A pod as one replica of a dlp job. Its role and index come from the labels
// the workload controllers set (JobSet, batch Job's completion index, Volcano's
// task), or the ones dlp puts on the pod template; its state from its phase and
// its main container's state.
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/status_mapping.h"

namespace dlp::internal::k8s {
namespace {

std::string FirstOf(const nlohmann::json& pod, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (std::string value = Label(pod, key); !value.empty()) return value;
    if (std::string value = Annotation(pod, key); !value.empty()) return value;
  }
  return "";
}

// The container that runs dlp-run: the one named "dlp", else the first.
const nlohmann::json& MainContainerStatus(const nlohmann::json& pod) {
  const nlohmann::json& statuses = At(pod, "status/containerStatuses");
  if (!statuses.is_array() || statuses.empty()) return At(pod, "status/no-such-field");
  for (const nlohmann::json& status : statuses) {
    if (Str(status, "name") == "dlp") return status;
  }
  return statuses[0];
}

}  // namespace

JobReplica ReplicaOf(const nlohmann::json& pod) {
  JobReplica replica;
  replica.role = FirstOf(
      pod, {"dlp.dev/role", "jobset.sigs.k8s.io/replicatedjob-name", "volcano.sh/task-spec"});
  if (replica.role.empty()) replica.role = "worker";
  const std::string index =
      FirstOf(pod, {"dlp.dev/replica-index", "batch.kubernetes.io/job-completion-index",
                    "volcano.sh/task-index"});
  if (!absl::SimpleAtoi(index, &replica.index)) replica.index = 0;
  replica.name = absl::StrCat(replica.role, "-", replica.index);
  replica.host = Str(pod, "spec/nodeName");
  const std::string phase = Str(pod, "status/phase");
  const nlohmann::json& container = MainContainerStatus(pod);
  const nlohmann::json& terminated = At(container, "state/terminated");
  const nlohmann::json& waiting = At(container, "state/waiting");
  if (phase == "Running") {
    replica.state = JobState::kRunning;
  } else if (phase == "Succeeded") {
    replica.state = JobState::kSucceeded;
  } else if (phase == "Failed") {
    replica.state = JobState::kFailed;
  }
  if (terminated.is_object()) {
    const nlohmann::json& code = At(terminated, "exitCode");
    if (code.is_number_integer()) replica.exit_code = code.get<int>();
    const nlohmann::json& signal = At(terminated, "signal");
    if (signal.is_number_integer()) replica.signal = signal.get<int>();
    replica.reason = Str(terminated, "reason");
    if (replica.reason == "Completed" || (replica.reason == "Error" && replica.exit_code)) {
      replica.reason.clear();  // the exit code says it
    }
  } else if (waiting.is_object() && Str(waiting, "reason") != "ContainerCreating") {
    replica.reason = Str(waiting, "reason");  // ImagePullBackOff, CrashLoopBackOff, ...
    if (std::string message = Str(waiting, "message"); !message.empty()) {
      absl::StrAppend(&replica.reason, ": ", message);
    }
  }
  // A pod the kubelet evicted or the node lost has its reason on the pod.
  if (std::string pod_reason = Str(pod, "status/reason"); !pod_reason.empty()) {
    replica.reason = pod_reason;
    if (std::string message = Str(pod, "status/message"); !message.empty()) {
      absl::StrAppend(&replica.reason, ": ", message);
    }
  }
  // An unschedulable pod: "0/8 nodes are available: insufficient nvidia.com/gpu".
  const nlohmann::json& scheduled = Condition(pod, "PodScheduled");
  if (phase == "Pending" && Str(scheduled, "status") == "False" && replica.reason.empty()) {
    replica.reason = absl::StrCat("Pending: ", Str(scheduled, "message"));
  }
  return replica;
}

}  // namespace dlp::internal::k8s
