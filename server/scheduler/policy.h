// Scheduling policies: which waiting jobs start now, which running ones are
// preempted for them, and why the others wait. The controller gives the
// policy a Snapshot (snapshot.h) and applies exactly the Decision it returns,
// so a policy is a pure function that tests and the simulator
// (bench/sched/) drive directly.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // InvalidArgument, with the numbers, when `job` can never run: more than
  // the machine has ("needs 64 CPUs, this machine has 2"), or what the
  // policy's own rules can never grant. Uses the snapshot's capacity, devices
  // and queues only.
  virtual absl::Status Admit(const PendingJob& job, const Snapshot& snapshot) const;
  virtual Decision Schedule(const Snapshot& snapshot) const = 0;
};

// The single-user policy: gang scheduling (a job starts only when all of its
// replicas fit at once). Within a queue, jobs go by priority (higher first),
// then FIFO, and the head of a queue blocks the jobs behind it, so a large
// job is not starved by a stream of small ones. Queues are independent of
// each other and share the machine; quotas are ignored; nothing is preempted.
class PriorityFifoPolicy : public SchedulingPolicy {
 public:
  Decision Schedule(const Snapshot& snapshot) const override;
};

std::unique_ptr<SchedulingPolicy> CreateDefaultPolicy();

// " even at its minimum (worker minCount 2)" for an elastic job, else "":
// Admit checks an elastic job at its minimum.
std::string MinimumWords(const PendingJob& job);

}  // namespace dlp::server
