// The job model shared by every backend: what a user asks for (JobSpec) and
// what a backend reports (Job). Plain value types; not thread-safe to mutate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "dlp/job_kinds.h"  // Framework, RestartPolicyKind and their names

namespace dlp {

struct Resources {
  int64_t cpu_millis = 1000;  // 1 CPU = 1000; "500m" and "0.5" both give 500
  int64_t memory_bytes = 0;   // 0: not set (no memory accounting for this replica)
  // milli-GPUs: 1000 = one whole device; 500 (`gpu: 0.5`) half of one.
  // Below 1000 any multiple of 1; from 1000 on whole devices only.
  int64_t gpu_millis = 0;
  // resources.gpuType: a flavour ("h200") or a device name ("NVIDIA H200");
  // empty: any device.
  std::string gpu_type;
  friend bool operator==(const Resources&, const Resources&) = default;
};

// One role of a job (chief, worker, ps, evaluator) and its replicas.
struct ReplicaSpec {
  std::string role;
  int count = 1;
  std::vector<std::string> command;  // argv; command[0] searched in PATH
  std::map<std::string, std::string> env;
  Resources resources;
  // replicas.ROLE.minCount: the fewest replicas the role runs with; 0 (unset)
  // means `count` (rigid). Below `count` the role is elastic (a worker only).
  int min_count = 0;
  friend bool operator==(const ReplicaSpec&, const ReplicaSpec&) = default;
};

// The fewest replicas `r` runs with: its minCount, or its count when rigid.
inline int MinCountOf(const ReplicaSpec& r) { return r.min_count > 0 ? r.min_count : r.count; }
inline bool IsElastic(const ReplicaSpec& r) { return MinCountOf(r) < r.count; }

struct RestartPolicy {
  RestartPolicyKind policy = RestartPolicyKind::kNever;
  int max_restarts = 0;
  int backoff_seconds = 0;
  friend bool operator==(const RestartPolicy&, const RestartPolicy&) = default;
};

// spec.successPolicy (Kubeflow's and JobSet's): when the job has succeeded.
struct SuccessPolicy {
  // The job succeeds once every replica of these roles has exited 0; the
  // other replicas are then stopped and their exit does not count. Empty:
  // every replica must exit 0.
  std::vector<std::string> roles;
  friend bool operator==(const SuccessPolicy&, const SuccessPolicy&) = default;
};

struct LogsSpec {
  // Each replica's log file is rotated (NAME.log -> NAME.log.1) past this many
  // bytes, keeping the newest output; 0: no limit.
  int64_t max_bytes = 0;
  friend bool operator==(const LogsSpec&, const LogsSpec&) = default;
};

// spec.tracing: what the ranks' traces (dlp profile, the timeline) keep.
enum class Tracing {
  kSampled,  // the default: each rank's file keeps its first 16 MiB of events
  kFull,     // every event, no budget
  kOff,      // no trace files
};
std::string_view TracingName(Tracing tracing);  // "sampled", "full", "off"
std::optional<Tracing> ParseTracing(std::string_view name);

// How a running job is stopped when the scheduler preempts it.
struct PreemptionSpec {
  int grace_period_seconds = 30;  // SIGTERM, then SIGKILL this much later
  friend bool operator==(const PreemptionSpec&, const PreemptionSpec&) = default;
};

// spec.dependsOn (Slurm's afterok / afternotok / afterany): when a job may
// start, by how an earlier job ended.
enum class DependencyCondition {
  kSucceeded,  // it succeeded
  kFailed,     // it failed or was cancelled
  kFinished,   // it ended, whichever way
};
std::string_view DependencyConditionName(DependencyCondition condition);  // "succeeded", ...
std::optional<DependencyCondition> ParseDependencyCondition(std::string_view name);

struct JobDependency {
  // The job waited for: its id, or (when submitting) the name of the
  // submitter's newest job of that name; in a pipeline, a sibling's name.
  // dlpd stores the id it resolved.
  std::string job;
  DependencyCondition condition = DependencyCondition::kSucceeded;
  friend bool operator==(const JobDependency&, const JobDependency&) = default;
};

struct JobSpec {
  std::string name;
  std::map<std::string, std::string> labels;
  Framework framework = Framework::kNone;
  std::string queue = "default";
  int priority = 0;
  // In canonical role order: chief, ps, worker, evaluator (ranks follow it).
  std::vector<ReplicaSpec> replicas;
  std::string workdir;  // absolute once parsed (relative paths resolve against the spec file)
  // The container image on container backends (kubernetes): "repo/name:tag";
  // empty: the context's `image`. Other backends ignore it.
  std::string image;
  RestartPolicy restart_policy;
  SuccessPolicy success_policy;
  int64_t active_deadline_seconds = 0;  // 0: no deadline
  LogsSpec logs;
  Tracing tracing = Tracing::kSampled;
  // Whether the scheduler may stop it to make room for another job (it goes
  // back to Queued and starts again later with DLP_RESTART_COUNT raised).
  bool preemptible = true;
  PreemptionSpec preemption;
  // Jobs that must end (each as its condition says) before this one starts.
  std::vector<JobDependency> depends_on;
  // Field by field (dlpd checks that a stored spec reads back the same).
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

// Every backend maps its own states into these five.
enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
std::string_view JobStateName(JobState state);  // "Queued", "Running", ...
std::optional<JobState> ParseJobState(std::string_view name);  // case-insensitive
bool IsTerminal(JobState state);

// A replica's share of one GPU device, as dlpd placed it: the one form of a
// placement in dlpd's store, on the wire (`replicas[].gpus`) and in the
// scheduler.
struct GpuShare {
  std::string device;  // as CUDA_VISIBLE_DEVICES names it: "0", or "MIG-<uuid>"
  int64_t millis = 0;  // thousandths of the device; 1000: all of it
  friend bool operator==(const GpuShare&, const GpuShare&) = default;
};
// A replica's devices for people: "0, 1", "0 (0.5)", "MIG-..."; "" for none.
std::string FormatGpuShares(const std::vector<GpuShare>& shares);

// One replica of a job as its backend reports it.
struct JobReplica {
  std::string name;  // "worker-1"
  std::string role;
  int index = 0;     // 0-based within its role
  JobState state = JobState::kQueued;
  std::optional<int> exit_code;
  std::optional<int> signal;  // set when the process was killed by a signal
  std::string host;
  int64_t pid = 0;
  std::string reason;  // why it ended, when known beyond its exit: "OOMKilled"
  // The GPUs dlpd placed it on, in CUDA_VISIBLE_DEVICES's order; empty: none.
  std::vector<GpuShare> gpus;
};

struct Job {
  std::string id;
  std::string name;
  std::string tenant = "default";
  std::string queue = "default";
  JobState state = JobState::kQueued;
  std::string reason;  // human-readable: why it is queued, failed or was cancelled
  std::optional<absl::Time> created, started, finished;
  std::optional<int> exit_code;  // of the failing replica (or 0 on success)
  // Restarts of its processes so far: after failures (restartPolicy) and after
  // preemptions; the next start exports it as DLP_RESTART_COUNT.
  int restart_count = 0;
  int preemptions = 0;  // times the scheduler stopped it to make room for another job
  // An elastic job (a worker with minCount below count): the workers it runs
  // with now (0: rigid, or not started), and how often its group re-formed at
  // another size (the ranks see DLP_RESIZE_COUNT).
  int size = 0;
  int resizes = 0;
  // A Queued job's place in its queue (1: next) and when the scheduler
  // expects to start it; unset when unknown or not Queued.
  std::optional<int> position;
  std::optional<absl::Time> estimated_start;
  // How replicas on a shared device are kept apart, for jobs that hold a
  // fraction of one: "MPS ..." or "by placement only (...)"; else empty.
  std::string gpu_sharing;
  JobSpec spec;
  std::vector<JobReplica> replicas;
};

// Why a job is where it is (`dlp status --why`): for a Queued job, its place,
// estimated start and the scheduler's latest decision for it, one step a line
// (empty when the policy gives no detail).
struct JobExplanation {
  std::string id;
  JobState state = JobState::kQueued;
  std::string reason;
  std::optional<int> position;
  std::optional<absl::Time> estimated_start;
  std::vector<std::string> trace;
};

struct Event {
  absl::Time time;
  std::string type;  // "Submitted", "Started", "ReplicaFailed", "Restarted", ...
  std::string message;
};

}  // namespace dlp
