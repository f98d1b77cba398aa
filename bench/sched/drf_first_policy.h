// A yardstick for the fairness measure, not a policy for dlpd: weighted DRF
// first and last. Each round the queue with the smallest dominant share per
// weight starts the first of its jobs that fits; when none fits, it preempts
// what it needs from the queues furthest above the level it would reach. No
// reservations, no backfill rules, no ageing: it stays as close to each
// tenant's weighted share as greedy filling can. It admits what dlpd's policy
// admits; with `keep_guarantees` it preempts, as dlpd does, only from queues
// above their nominal quota, else from any queue.
#pragma once

#include <memory>

#include "server/scheduler/policy.h"

namespace dlp::bench {

class DrfFirstPolicy : public server::SchedulingPolicy {
 public:
  explicit DrfFirstPolicy(bool keep_guarantees)
      : keep_guarantees_(keep_guarantees), rules_(server::CreateDefaultPolicy()) {}
  absl::Status Admit(const server::PendingJob& job,
                     const server::Snapshot& snapshot) const override {
    return rules_->Admit(job, snapshot);
  }
  server::Decision Schedule(const server::Snapshot& snapshot) const override;

 private:
  bool keep_guarantees_;
  std::unique_ptr<server::SchedulingPolicy> rules_;
};

}  // namespace dlp::bench
