// Head-of-queue reservations and the backfill rule (Slurm's, for one head per
// queue). A queue's blocked head reserves the resources it needs at the
// earliest time they are free: the running jobs are released in the order
// their time limits end them (stopping jobs first, jobs without a limit last,
// at an unknown time) until the head fits. A later job may start now only if
// it cannot delay that start: it ends before the reserved time (it has a time
// limit, the reservation a known time), or it fits in what the reservation
// leaves over at that time (then it is counted there too).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "server/scheduler/quota_accounting.h"

namespace dlp::server::fair_share {

// Something that holds resources on the timeline: a running job, or one
// started in this round.
struct Holder {
  int64_t seq = 0;
  int queue = 0;
  int priority = 0;
  Amounts demand;
  std::vector<ReplicaPlacement> placement;
  absl::Time started = absl::InfinitePast();
  absl::Time end = absl::InfiniteFuture();  // started + time limit; none: InfiniteFuture
  bool preemptible = true;
  bool stopping = false;  // being stopped (or chosen as a victim this round)
  // Its priority as if it waited again, ageing included (queue_order.h): a
  // victim must be below its preemptor on both counts, or once back in the
  // queue it would go first and be preempted again, for ever.
  int64_t effective_priority = 0;
  int preemptions = 0;
  // An elastic job (elastic_role.h): `demand` and `placement` are at `size`.
  ElasticRole elastic;
  int size = 0;
  absl::Time resized = absl::InfinitePast();
  bool resizing = false;  // re-forming, or resized this round: not resized again
};

struct Reservation {
  int64_t seq = 0;  // the head
  int queue = 0;
  absl::Time at;                     // InfiniteFuture: after a job without a time limit, unknown
  std::vector<int64_t> waiting_for;  // the jobs whose end lets it start
  std::vector<ReplicaPlacement> placement;  // the head's GPUs at `at`
  Ledger ledger;                            // at `at`, the head included
};

void AddShares(DeviceUse& use, const std::vector<ReplicaPlacement>& placement);
void RemoveShares(DeviceUse& use, const std::vector<ReplicaPlacement>& placement);
// Whether `placement`'s devices are still free enough in `use`.
bool SharesFit(const DeviceUse& use, const std::vector<ReplicaPlacement>& placement);

// When `job` (of `queue`, `demand`) can start: `base` is what is in use now
// plus what earlier reservations claim; `by_end` lists every holder by end,
// and they release in that order, stopping ones first. nullopt when it does
// not fit even once every holder has ended.
std::optional<Reservation> Reserve(const QuotaModel& model, const Ledger& base,
                                   const std::vector<Holder>& holders,
                                   const std::vector<size_t>& by_end, const PendingJob& job,
                                   int queue, const Amounts& demand, absl::Time now);

// Whether a job ending at `end` ends before `r` starts (so it cannot delay
// it); else it must fit in r.ledger, what `r` leaves over at r.at.
bool EndsBefore(const Reservation& r, absl::Time end);

}  // namespace dlp::server::fair_share
