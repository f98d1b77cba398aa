// What the scheduling policy is given and what it returns. The controller
// builds a Snapshot from the store, calls the policy (a pure function of the
// snapshot) and applies the Decision: starts, preemptions and the reasons of
// those left waiting.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "dlp/job.h"  // GpuShare
#include "server/scheduler/elastic_role.h"
#include "server/scheduler/queue_config.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

// One schedulable GPU: a whole device or a MIG instance (its own device).
struct GpuDevice {
  std::string id;       // what CUDA_VISIBLE_DEVICES gets: "0", or "MIG-<uuid>"
  std::string uuid;     // "GPU-..." or "MIG-..."
  std::string name;     // NVML's device name, e.g. "NVIDIA H200"
  std::string flavour;  // FlavourOf(name): "h200"
  int64_t memory_bytes = 0;
  // N of /dev/nvidiaN, the node a process opens to use the device (a MIG
  // instance: its GPU's); -1: unknown.
  int minor = -1;
  friend bool operator==(const GpuDevice&, const GpuDevice&) = default;
};

// What one replica asks of the GPUs (from its role's resources).
struct ReplicaGpuDemand {
  std::string replica;   // "worker-0"
  int64_t gpu_millis = 0;  // 500: half a device; 2000: two whole devices
  std::string gpu_type;  // resources.gpuType, empty: any
  friend bool operator==(const ReplicaGpuDemand&, const ReplicaGpuDemand&) = default;
};

// Where each replica that uses GPUs runs (replicas without GPUs are absent).
struct ReplicaPlacement {
  std::string replica;
  std::vector<GpuShare> gpus;
  friend bool operator==(const ReplicaPlacement&, const ReplicaPlacement&) = default;
};

struct PendingJob {
  int64_t seq = 0;  // the job's id; lower was submitted first
  std::string tenant;
  std::string queue;
  int priority = 0;
  ResourceVector demand;  // DemandOf(spec): the whole gang
  std::vector<ReplicaGpuDemand> replicas;  // only those with GPUs
  absl::Time submitted = absl::InfinitePast();
  // activeDeadlineSeconds: how long it may run once started (backfill
  // uses it as Slurm uses time limits); zero: unbounded.
  absl::Duration time_limit = absl::ZeroDuration();
  bool preemptible = true;
  int preemptions = 0;  // times it was preempted so far
  // An elastic job: `demand` and `replicas` are at elastic.max. `size` is
  // set only on a copy made by AtSize (elastic.h): the size it starts at.
  ElasticRole elastic;
  int size = 0;
};

struct RunningJob {
  int64_t seq = 0;
  std::string tenant;
  std::string queue;
  int priority = 0;
  ResourceVector demand;
  std::vector<ReplicaPlacement> placement;
  absl::Time started = absl::InfinitePast();
  absl::Duration time_limit = absl::ZeroDuration();  // zero: unbounded
  bool preemptible = true;
  // Being stopped (preempted or cancelled): still holds its resources, but
  // they are about to be free; never chosen as a victim again.
  bool stopping = false;
  // When it was submitted: preemption compares the priority it would have if
  // it waited again (ageing included), so a victim never outranks the job it
  // made room for once it is back in the queue.
  absl::Time submitted = absl::InfinitePast();
  int preemptions = 0;  // times it was preempted so far
  // An elastic job: `demand` and `placement` are at `size` replicas of its
  // elastic role. `resized`: its start or last change of size (it grows no
  // sooner than Snapshot::resize_interval after). `resizing_to`: non-zero
  // while its group re-forms at that size (it is not resized again until it
  // has); a shrink holds `size` until then, a grow is at `size` already.
  ElasticRole elastic;
  int size = 0;
  absl::Time resized = absl::InfinitePast();
  int resizing_to = 0;
};

struct Snapshot {
  absl::Time now;
  ResourceVector capacity;          // the machine
  std::vector<GpuDevice> devices;   // empty: GPUs "0".."n-1" from capacity
  std::vector<QueueConfig> queues;  // empty: ImplicitQueue for each named one
  std::vector<RunningJob> running;
  std::vector<PendingJob> pending;
  // Fair-share history (fair_share_history.h): each queue's use averaged over the
  // recent past, what is `fair_share_half_life` old counting half. Zero: none;
  // the policy then sees only what runs now. A queue absent from
  // `decayed_use` used nothing lately.
  absl::Duration fair_share_half_life = absl::ZeroDuration();
  std::map<std::string, ResourceVector> decayed_use;  // by queue name
  absl::Duration resize_interval = kDefaultResizeInterval;  // elastic.h
  // A running job younger than this is not preempted (Slurm's
  // PreemptExemptTime): a job that waits for it gets its room when it ends or
  // comes of age. Zero: any job may be preempted as soon as it starts.
  absl::Duration preempt_exempt_time = absl::ZeroDuration();
};

struct StartDecision {
  int64_t seq = 0;
  std::vector<ReplicaPlacement> placement;
  int size = 0;  // an elastic job: replicas of its elastic role it starts with
};

// A running elastic job changes size: it stops every rank and re-forms at
// `to` (the controller's part), holding `placement` from then on.
struct ResizeDecision {
  int64_t seq = 0;
  int from = 0;
  int to = 0;
  std::vector<ReplicaPlacement> placement;  // the whole job's, at `to`
  int64_t for_job = 0;                      // a shrink: the job it makes room for; 0: a grow
  // The job's event: "Resized 4→2 (for job 17, priority 100)",
  // "Resized 2→4 (capacity free)".
  std::string reason;
};

struct PreemptDecision {
  int64_t victim = 0;
  int64_t preemptor = 0;
  // The victim's reason: "Preempted by job 12 (queue vision reclaiming gpu)".
  std::string reason;
};

// The steps of a decision, one a line (--why). Immutable and shared: the
// jobs behind one head mostly have the same steps, so a round with thousands
// waiting builds each distinct trace once, and the controller keeps them all
// without copying.
class DecisionTrace {
 public:
  DecisionTrace() = default;
  explicit DecisionTrace(std::vector<std::string> lines)
      : lines_(std::make_shared<const std::vector<std::string>>(std::move(lines))) {}
  const std::vector<std::string>& lines() const {
    static const std::vector<std::string> kNone;
    return lines_ ? *lines_ : kNone;
  }

 private:
  std::shared_ptr<const std::vector<std::string>> lines_;
};

// Why a job still waits, in words and as the steps that led there.
struct PendingExplanation {
  // Current and precise, e.g. "3rd in queue vision; needs 2 gpu; queue vision
  // uses 4/4 gpu (nominal 4, may borrow 2, cohort has 0 free); waiting for
  // job 17 (est. start in 12 min)".
  std::string reason;
  int position = 0;  // 1-based, in its queue's order
  std::optional<absl::Time> estimated_start;  // unset: unknown
  DecisionTrace trace;
};

struct Decision {
  std::vector<StartDecision> start;  // in start order
  // All victims of this round at once; their preemptors wait for them.
  std::vector<PreemptDecision> preempt;
  // Elastic jobs shrunk (before anyone is preempted) or grown.
  std::vector<ResizeDecision> resize;
  std::map<int64_t, PendingExplanation> waiting;  // seq -> why it waits
};

}  // namespace dlp::server
