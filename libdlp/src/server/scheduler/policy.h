// Scheduling policies: which waiting jobs start now. The controller gives the
// policy a snapshot (capacity, what running jobs hold, who waits) and starts
// exactly what it returns, so a policy is a pure function that tests can drive
// directly and a multi-tenant policy (fair share, quotas, preemption) can
// replace the default without touching the controller.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

struct PendingJob {
  int64_t seq = 0;  // submission order: lower came first
  std::string tenant;
  std::string queue;
  int priority = 0;
  ResourceVector demand;
};

struct ClusterState {
  ResourceVector capacity;
  ResourceVector used;         // held by running jobs
  std::vector<int> free_gpus;  // device indices not held by a running job
};

struct GpuAssignment {  // the scheduler starts job `seq` on these GPUs
  int64_t seq = 0;
  std::vector<int> gpus;  // device indices assigned to the job
};

struct ScheduleDecision {
  std::vector<GpuAssignment> start;        // in start order
  std::map<int64_t, std::string> waiting;  // seq -> why it still waits
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // InvalidArgument when a job with `demand` can never run on `capacity`
  // ("needs 64 CPUs, this machine has 2").
  virtual absl::Status Admit(const ResourceVector& demand,
                             const ResourceVector& capacity) const;
  virtual ScheduleDecision Schedule(const std::vector<PendingJob>& pending,
                                    const ClusterState& cluster) const = 0;
};

// The default: gang scheduling (a job starts only when all of its replicas fit
// at once). Within a queue, jobs go by priority (higher first), then FIFO, and
// the head of a queue blocks the jobs behind it, so a large job is not starved
// by a stream of small ones. Queues are independent of each other.
class PriorityFifoPolicy : public SchedulingPolicy {
 public:
  ScheduleDecision Schedule(const std::vector<PendingJob>& pending,
                            const ClusterState& cluster) const override;
};

std::unique_ptr<SchedulingPolicy> CreateDefaultPolicy();

}  // namespace dlp::server
