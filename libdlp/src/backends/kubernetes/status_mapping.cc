// A job's state: cancelled (dlp's record says so) > the workload's terminal
// condition > Running when a pod runs > Queued. Its reason: the failing pod
// and its exit code, else Kueue's or the scheduler's word on why it waits.
#include "backends/kubernetes/status_mapping.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/render_input.h"
#include "dlp/codec.h"

namespace dlp::internal::k8s {
namespace {

// The pod whose failure failed the job: the first failed one by replica name.
const JobReplica* FailingReplica(const std::vector<JobReplica>& replicas) {
  for (const JobReplica& r : replicas) {
    if (r.state == JobState::kFailed || (r.exit_code && *r.exit_code != 0)) return &r;
  }
  return nullptr;
}

std::string Describe(const JobReplica& r, const std::string& pod) {
  std::string text = absl::StrCat("pod ", pod, " (", r.name, ")");
  if (r.exit_code) absl::StrAppend(&text, " exited with code ", *r.exit_code);
  if (!r.reason.empty())
    absl::StrAppend(&text, r.exit_code ? " (" : ": ", r.reason, r.exit_code ? ")" : "");
  return text;
}

// Kueue's word on a Workload it took the quota back from and requeued:
// "preempted by Kueue (InClusterQueue): Preempted to accommodate a workload
// (UID: ..., JobUID: ...) ...", or another eviction's reason; "" when none.
std::string KueueEviction(const nlohmann::json& kueue_workload) {
  for (const char* type : {"Preempted", "Evicted"}) {
    const nlohmann::json& condition = Condition(kueue_workload, type);
    if (Str(condition, "status") != "True") continue;
    return absl::StrCat(std::string_view(type) == "Preempted" ? "preempted" : "evicted",
                        " by Kueue (", Str(condition, "reason"), "): ", Str(condition, "message"));
  }
  return "";
}

// The times Kueue preempted the Workload (status.schedulingStats.evictions).
int KueuePreemptions(const nlohmann::json& kueue_workload) {
  const nlohmann::json& evictions = At(kueue_workload, "status/schedulingStats/evictions");
  int count = 0;
  if (!evictions.is_array()) return count;
  for (const nlohmann::json& eviction : evictions) {
    const nlohmann::json& n = At(eviction, "count");
    if (Str(eviction, "reason") == "Preempted" && n.is_number_integer()) count += n.get<int>();
  }
  return count;
}

// Why a job that has not started waits: Kueue first, then the pods.
std::string WaitingReason(const JobObjects& objects, const std::vector<JobReplica>& replicas,
                          const std::vector<std::string>& pods, const WorkloadStatus& workload) {
  if (objects.kueue_workload) {
    std::string reason = KueueEviction(*objects.kueue_workload);
    const nlohmann::json& quota = Condition(*objects.kueue_workload, "QuotaReserved");
    if (Str(quota, "status") == "False") {
      absl::StrAppend(&reason, reason.empty() ? "" : "; ", "QuotaReserved=False: ",
                      Str(quota, "message"));
    }
    if (!reason.empty()) return reason;
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (!replicas[i].reason.empty() && replicas[i].state == JobState::kQueued) {
      return replicas[i].reason.rfind("Pending: ", 0) == 0
                 ? replicas[i].reason
                 : absl::StrCat("pod ", pods[i], " (", replicas[i].name, "): ", replicas[i].reason);
    }
  }
  if (workload.phase == WorkloadPhase::kSuspended) {
    const std::string queue = Label(*objects.workload, "kueue.x-k8s.io/queue-name");
    return queue.empty() ? "suspended"
                         : absl::StrCat("waiting for Kueue to admit it to queue ", queue);
  }
  return "";
}

}  // namespace

Job MapJob(const JobObjects& objects) {
  Job job;
  job.id = objects.id;
  if (absl::StatusOr<JobSpec> spec = JobSpecFromJson(Annotation(objects.record, kSpecAnnotation));
      spec.ok()) {
    job.spec = std::move(*spec);
    job.name = job.spec.name;
    job.queue = job.spec.queue;
  }
  job.created = TimeAt(objects.record, "metadata/creationTimestamp");
  if (objects.kueue_workload) job.preemptions = KueuePreemptions(*objects.kueue_workload);
  // With Kueue, the queue that admits the job is the workload's LocalQueue.
  if (objects.workload) {
    if (std::string local_queue = Label(*objects.workload, kQueueNameLabel); !local_queue.empty()) {
      job.queue = local_queue;
    }
  }

  // Replicas in name order, with their pods' names beside them.
  std::vector<std::pair<JobReplica, std::string>> sorted;
  for (const nlohmann::json& pod : objects.pods) {
    sorted.emplace_back(ReplicaOf(pod), Str(pod, "metadata/name"));
    if (std::optional<absl::Time> start = TimeAt(pod, "status/startTime");
        start && (!job.started || *start < *job.started)) {
      job.started = start;
    }
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.role, a.first.index) < std::tie(b.first.role, b.first.index);
  });
  std::vector<std::string> pods;
  for (auto& [replica, pod] : sorted) {
    job.replicas.push_back(replica);
    pods.push_back(pod);
  }

  if (std::string cancelled = Annotation(objects.record, kCancelledAnnotation);
      !cancelled.empty()) {
    job.state = JobState::kCancelled;
    job.reason = "cancelled";
    absl::Time at;
    std::string error;
    if (absl::ParseTime(absl::RFC3339_full, cancelled, &at, &error)) job.finished = at;
    return job;
  }
  if (!objects.workload) {
    job.state = JobState::kFailed;
    job.reason = "its workload object was deleted outside dlp";
    return job;
  }
  const WorkloadStatus workload = WorkloadStatusOf(*objects.workload);
  if (const nlohmann::json& restarts = At(*objects.workload, "status/restarts");
      restarts.is_number_integer()) {
    job.restart_count = restarts.get<int>();  // JobSet's failurePolicy restarts
  }
  const JobReplica* failing = FailingReplica(job.replicas);
  switch (workload.phase) {
    case WorkloadPhase::kSucceeded:
      job.state = JobState::kSucceeded;
      job.exit_code = 0;
      job.finished = workload.finished;
      return job;
    case WorkloadPhase::kFailed:
      job.state = JobState::kFailed;
      job.finished = workload.finished;
      if (failing != nullptr) {
        job.exit_code = failing->exit_code;
        job.reason = Describe(*failing, pods[failing - job.replicas.data()]);
      } else {
        job.reason = workload.reason;
      }
      return job;
    default:
      break;
  }
  const bool running = std::any_of(job.replicas.begin(), job.replicas.end(),
                                   [](const auto& r) { return r.state == JobState::kRunning; });
  job.state = running ? JobState::kRunning : JobState::kQueued;
  if (failing != nullptr) {
    job.reason = Describe(*failing, pods[failing - job.replicas.data()]);  // restarting
  } else if (!running) {
    job.reason = WaitingReason(objects, job.replicas, pods, workload);
  } else {
    for (size_t i = 0; i < job.replicas.size(); ++i) {
      if (job.replicas[i].state == JobState::kQueued && !job.replicas[i].reason.empty()) {
        job.reason = absl::StrCat("pod ", pods[i], " (", job.replicas[i].name,
                                  "): ", job.replicas[i].reason);
        break;
      }
    }
  }
  return job;
}

}  // namespace dlp::internal::k8s
