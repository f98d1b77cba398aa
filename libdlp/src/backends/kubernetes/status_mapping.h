// From what the cluster says about a job's objects to dlp's Job: the
// workload's conditions (JobSet, Job, TrainJob) or phase (Volcano) and the pod
// phases give the state; the failing pod, its exit code or reason (OOMKilled,
// ImagePullBackOff, Evicted), Kueue's Workload conditions and unschedulable
// pods give the reason. docs/kubernetes.md, "Status mapping", is the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dlp/job.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// The ConfigMap's annotations that make it the job's record.
inline constexpr char kSpecAnnotation[] = "dlp.dev/spec";            // JobSpecToJson
inline constexpr char kCancelledAnnotation[] = "dlp.dev/cancelled";  // RFC 3339 time

// One job's objects as read from the API server.
struct JobObjects {
  std::string id;
  nlohmann::json record;                   // the ConfigMap
  std::optional<nlohmann::json> workload;  // absent once deleted
  std::vector<nlohmann::json> pods;
  std::optional<nlohmann::json> kueue_workload;  // Kueue's Workload, when there is one
};

// What the workload object alone says.
enum class WorkloadPhase { kPending, kSuspended, kRunning, kSucceeded, kFailed };
struct WorkloadStatus {
  WorkloadPhase phase = WorkloadPhase::kPending;
  std::string reason;  // the deciding condition's "Reason: message"
  std::optional<absl::Time> finished;
};
WorkloadStatus WorkloadStatusOf(const nlohmann::json& workload);

// A pod as a replica: its name ("worker-3") from the role and completion-index
// labels, phase, host, exit code and reason.
JobReplica ReplicaOf(const nlohmann::json& pod);

// The whole job. Pure: no I/O.
Job MapJob(const JobObjects& objects);

}  // namespace dlp::internal::k8s
