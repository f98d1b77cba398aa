// The default policy of dlpd: capacity queues with quotas and cohorts,
// weighted fair sharing of what is borrowed, gangs with head-of-queue
// reservations and backfill, and preemption. docs/scheduling.md explains the
// model with a worked example; the rules, in the order the policy applies
// them:
//
//  1. Each queue orders its jobs by effective priority (priority raised by
//     ageing, queue_order.h), then submission.
//  2. The queues take turns, one job at a time: a job that stays within its
//     queue's nominal quota goes before one that borrows; among borrowers the
//     queue with the lowest weighted dominant share of what it borrows goes
//     first (DRF); then effective priority, then submission.
//  3. A job starts only as a whole gang, within the machine (its GPU replicas
//     placed), its queue's nominal quota plus borrowing limit, its cohort's
//     pool (quota_accounting.h), and only if it delays no reservation.
//  4. A queue's first job that cannot start is its head: it preempts (rule 5)
//     or, if it is the first head in turn order, reserves the resources it
//     needs at the earliest time they free up (reservation.h); with a
//     fair-share history (fair_share_history.h), the head submitted first
//     of those that cannot start reserves instead, whatever its turn. The
//     jobs behind a head may only backfill. A job that a head without a
//     reservation of a known time could preempt once it ran (rule 5: its
//     queue, lower priority; or its cohort, borrowed) starts only where
//     that head still fits beside it.
//  5. Preemption (preemption_choice.h): lower-priority jobs of its own queue,
//     or, when its queue uses less than its nominal quota, jobs that other
//     queues of its cohort run on borrowed quota: any such job if the head
//     stays within its nominal quota, else only those of queues whose
//     weighted borrowed share is above what its own would be once it runs;
//     none younger than the snapshot's preempt_exempt_time. Jobs already
//     stopping count as free: no new victims while they suffice, and the
//     head that waits for them keeps what they free in every round until
//     they have stopped, beyond rule 4's one reservation.
//
// With no queue configured each queue a job names has the whole machine as
// its quota, so the rules reduce to priority, FIFO, gangs, reservations and
// backfill on one shared machine, with the same reasons as before, and
// nothing is preempted.
#pragma once

#include "server/scheduler/policy.h"

namespace dlp::server {

class FairSharePolicy : public SchedulingPolicy {
 public:
  // Beyond the machine's limits (SchedulingPolicy::Admit): a configured queue
  // of that name, a priority in its range, a demand within what the queue may
  // ever use, and a non-preemptible job within its nominal quota.
  absl::Status Admit(const PendingJob& job, const Snapshot& snapshot) const override;
  Decision Schedule(const Snapshot& snapshot) const override;
};

}  // namespace dlp::server
