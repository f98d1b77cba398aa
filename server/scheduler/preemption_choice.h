// Which running jobs to preempt for a waiting one. Candidates come from two
// rules: jobs of the preemptor's own queue at a lower priority, and (when the
// preemptor's queue uses less than its nominal quota) jobs that other queues
// of its cohort run on borrowed quota (FairShareRound::Preempt has which).
// A job that runs within its own queue's nominal quota is never preempted
// for another queue, a job marked non-preemptible or already stopping never
// at all, nor one younger than Snapshot::preempt_exempt_time.
//
// Of the candidates, the fewest, lowest-priority, most recently started are
// chosen: one candidate alone if one suffices (the first in that order);
// else candidates in that order until the preemptor fits, then each one not
// needed after all is given back (last chosen first). All are preempted at
// once, and only if the preemptor then fits.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "server/scheduler/reservation.h"

namespace dlp::server::fair_share {

// Per holder: whether it runs within its queue's nominal quota. A queue's
// running jobs by priority (higher first), then start (earlier first): the
// prefix that fits in its nominal quota is within it.
std::vector<bool> WithinNominalHolders(const QuotaModel& model, const std::vector<Holder>& holders);

// Reclaim (rule 5b): a head whose queue uses less than its nominal quota
// takes back what other queues of its cohort borrow. If the head fits in
// that quota, from every one; if it would borrow itself (a gang larger than
// what is left of the quota), only from queues whose weighted share of what
// they borrow is above what its own would be once it runs (weighted DRF), so
// that two queues can never take the same resources back from each other.
struct Reclaim {
  bool any = false;        // the head reclaims at all
  std::vector<bool> from;  // by queue: its borrowed jobs are candidates
};
Reclaim ReclaimFrom(const QuotaModel& model, const Ledger& soon, int queue, const Amounts& demand);

// Sorts `candidates` (indices into holders) into preference order: lowest
// priority first, then most recently started, then highest seq.
void SortCandidates(const std::vector<Holder>& holders, std::vector<size_t>& candidates);

// Whether `job` fits in `ledger`, GPU placement included; `ledger` is left
// as it was (it is only tried on, not copied).
bool FitsIn(const QuotaModel& model, Ledger& ledger, const PendingJob& job, int queue,
            const Amounts& demand);

// The victims (in candidate order) after which `job` fits in `soon` (what is
// in use once the stopping jobs have ended); nullopt when no set suffices.
std::optional<std::vector<size_t>> ChooseVictims(const QuotaModel& model, const Ledger& soon,
                                                 const std::vector<Holder>& holders,
                                                 const std::vector<size_t>& candidates,
                                                 const PendingJob& job, int queue,
                                                 const Amounts& demand);

}  // namespace dlp::server::fair_share
