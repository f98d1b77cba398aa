// The words of the scheduler's decisions: why a job waits (PendingExplanation
// reasons and trace lines) and why a job was preempted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server/scheduler/quota_accounting.h"

namespace dlp::server {

// Empty when `demand` fits in `free`; else what is short, e.g.
// "needs 3 CPUs, 1 CPU free".
std::string MachineShortfall(const ResourceVector& demand, const ResourceVector& free);

namespace fair_share {

// "1st", "2nd", "3rd", "11th", "22nd".
std::string Ordinal(int n);
// "in 12 min", "in 40 s", "in 3 h 5 min".
std::string StartsIn(absl::Time at, absl::Time now);
// "jobs 5, 6" or "job 5".
std::string JobList(const std::vector<int64_t>& seqs);

// What `block` says about `queue`'s job of `demand` in `ledger`, e.g.
// "queue vision uses 4/4 gpu (nominal 4, may borrow 2, cohort has 0 free)"
// or "waiting for resources: needs 3 CPUs, 1 CPU free".
std::string DescribeBlock(const QuotaModel& model, const Ledger& ledger, int queue,
                          const Amounts& demand, const ResourceVector& demand_vector, Block block);

// "Preempted by job 12 (queue vision reclaiming gpu)" and
// "Preempted by job 12 (priority 5 in queue vision)".
std::string ReclaimReason(int64_t preemptor, const std::string& queue, const std::string& what);
std::string PriorityReason(int64_t preemptor, int priority, const std::string& queue);

}  // namespace fair_share
}  // namespace dlp::server
