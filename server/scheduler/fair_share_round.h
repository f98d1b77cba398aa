// One Schedule call of FairSharePolicy (fair_share_policy.h has the rules):
// the ledgers, reservations and per-queue cursors it keeps while the queues
// take turns. Each pending job is looked at once; a queue with a blocked head
// tries at most kBackfillDepth jobs behind it, so a round costs
// O(pending log queues + tried jobs * reservations).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "server/scheduler/queue_order.h"
#include "server/scheduler/quota_accounting.h"
#include "server/scheduler/reservation.h"

namespace dlp::server::fair_share {

// Behind a blocked head, how many jobs a queue tries for backfill in one
// round (Slurm's bf_max_job_part); the others wait for the next round. Deep:
// with the machine full a try stops at the totals and costs little, and a
// short job far down a long queue is what fills GPUs kept for a reservation.
inline constexpr int kBackfillDepth = 1024;
// How many blocked heads reserve in one round, in turn order (Slurm's
// bf_max_job_test), counting the preemptors waiting for their victims. One:
// the first blocked head in turn order (the queue furthest below its share
// goes first) reserves, and once it has started the next head does; with a
// fair-share history, the head that has waited longest, so that the
// reservation stays with one head until it starts instead of passing between
// queues as their use changes. Each
// further reservation would keep more of the machine idle for a start hours
// away and shut out backfill (in dlp-bench-policy-sim, a reservation for every
// queue's head cost 3 points of GPU use and doubled the mean completion time).
inline constexpr int kMaxReservations = 1;
// A job preempted this many times is not preempted again: it runs to its
// end. The policy keeps no memory between rounds, so this is what bounds a
// preemption loop when jobs the policy does not foresee take what the
// victims freed before their preemptor could start.
inline constexpr int kMaxPreemptionsOfAJob = 3;

// Whether a job may ever be a victim: Preempt's rule, and ShieldsOf's
// foresight of it for a job not yet started.
inline bool MayBePreempted(bool preemptible, int preemptions) {
  return preemptible && preemptions < kMaxPreemptionsOfAJob;
}
// Whether a job outranks another of its queue enough to preempt it: higher
// on both its priority and its effective priority (ageing included), or the
// victim, back in the queue, would go first and be preempted again, for ever.
inline bool OutranksInItsQueue(int priority, int64_t effective, int other_priority,
                               int64_t other_effective) {
  return other_priority < priority && other_effective < effective;
}

class FairShareRound {
 public:
  explicit FairShareRound(const Snapshot& snapshot);
  Decision Run();

 private:
  struct QueueState {
    std::vector<QueuedJob> jobs;
    size_t next = 0;
    bool blocked = false;  // its head cannot start: the rest may only backfill
    int64_t head = 0;
    std::string behind;  // "waiting behind job 12 in queue vision"
    int backfill_tries = 0;
    int waiting = 0;  // jobs left waiting so far
    // Its head holds no reservation with a known time, nor waits for
    // victims (ShieldsOf): what the head asks for, its priorities, and by
    // queue whether it would reclaim that queue's borrowed jobs (ReclaimFrom).
    bool head_shields = false;
    Amounts head_demand;
    int head_priority = 0;
    int64_t head_effective_priority = 0;
    std::vector<bool> head_reclaims;
  };
  struct Attempt {
    bool started = false;
    Block block;
    int reservation = -1;  // the reservation it would delay
    int kept_for = -1;  // the queue whose head's room it would take (ShieldsOf)
  };
  struct Key {  // the order in which queues take turns (rule 2), smallest first
    bool borrows;
    double share;
    int64_t effective_priority;
    int64_t seq;
    int queue;
    bool operator>(const Key& o) const;
  };

  // Elastic jobs (fair_share_elastic.cc).
  struct Shrink {
    size_t holder;
    int to;
  };
  // `job` (elastic, which did not start whole) at the largest size below its
  // whole that starts; else the attempt at its minimum, with `tried` and
  // `tried_demand` set to the job at that size (what it waits for).
  Attempt TryStartElastic(const PendingJob& job, int queue, const PendingJob*& tried,
                          Amounts& tried_demand);
  // Shrinks of `candidates` (elastic ones, toward their minimum, lowest
  // priority and most recently grown first) until `job` fits in `ledger`,
  // which they are given back to; `fits` says whether it then does.
  std::vector<Shrink> PlanShrinks(const PendingJob& job, int queue, const Amounts& demand,
                                  const std::vector<size_t>& candidates, Ledger& ledger,
                                  bool& fits);
  // Rule 5 with elastic jobs: the shrinks of PlanShrinks, then, if `job`
  // still does not fit, whole victims (ChooseVictims with the candidates at
  // their shrunk size). nullopt when even that does not make it fit.
  std::optional<std::vector<size_t>> ShrinkThenChooseVictims(
      const PendingJob& job, int queue, const Amounts& demand,
      const std::vector<size_t>& candidates, Ledger& ledger, std::vector<Shrink>& shrinks);
  // Applies `shrink` for `job`: the holder at its new size, what it frees
  // counted as free soon, the ResizeDecision.
  void ApplyShrink(const Shrink& shrink, const PendingJob& job);
  // A head that waits for room starts once elastic jobs give back what
  // they hold above their minimum, when that is enough: it shrinks them.
  bool ShrinkForRoom(const PendingJob& job, int queue, const Amounts& demand,
                     std::vector<std::string>& trace, std::string& waiting_text);
  // What is in use beside the reservations, once the stopping jobs have stopped.
  Ledger BesideReservations() const;
  // `job` waits for `seqs` (shrinking or stopping): what they free is
  // reserved for it from now on.
  void ReserveNow(const PendingJob& job, int queue, const Amounts& demand,
                  std::vector<int64_t> seqs);
  // After every queue's turn: running elastic jobs take what is still free
  // and no reservation starting within an interval needs, one replica at a
  // time, toward their whole size.
  void Grow();
  void GrowOne(Holder& h);

  Key KeyOf(int queue) const;
  // With a fair-share history, the queue whose head reserves: of the queues
  // whose first job cannot start now, the one whose first job was submitted
  // first. -1: none.
  int LongestWaitingBlockedQueue() const;
  void Turn(int queue);
  // The queues whose heads `queued` (of `queue`, asking `demand`) must leave
  // room for, into `out`: of the heads without a reservation of a known time
  // (none, or one that waits for jobs without a time limit, whose room
  // backfill would take meanwhile), those that could preempt it once it ran
  // (rule 5): its own queue's head of higher priority and, if it would run
  // beyond its queue's nominal quota, the heads of its cohort that would
  // reclaim it. In their room it would only be their next victim.
  void ShieldsOf(int queue, const QueuedJob& queued, const Amounts& demand,
                 std::vector<int>& out) const;
  Attempt TryStart(const PendingJob& job, int queue, const Amounts& demand);
  void Commit(const PendingJob& job, int queue, const Amounts& demand,
              std::vector<ReplicaPlacement> placement, const std::vector<char>& counts);
  void BecomeHead(const QueuedJob& queued, int queue, const Amounts& demand,
                  const Attempt& attempt);
  // Preempts for `job` when that lets it fit; false when nothing is chosen.
  bool Preempt(const PendingJob& job, int queue, const Amounts& demand, const Block& block,
               std::vector<std::string>& trace, std::string& waiting_text);
  void ExplainBehind(const PendingJob& job, int queue, const Amounts& demand,
                     const Attempt& attempt);
  void Drain(int queue);
  // What stops a job now, in words.
  std::string BlockText(const PendingJob& job, int queue, const Amounts& demand,
                        const Attempt& attempt) const;
  // "fair share: queue vision is behind its share: used 47% of its nominal
  // gpu over the last ~1h (half-life)", for --why.
  std::string HistoryText(int queue) const;
  // "2nd in queue vision; needs 2 gpu; " with queues configured, else "";
  // then `then` (in one allocation: this runs for every waiting job).
  std::string Lead(int queue, int position, const Amounts& demand,
                   absl::string_view then = "") const;

  const Snapshot& snapshot_;
  QuotaModel model_;
  Decision decision_;
  // In use now; now plus the claims of reservations; once stopping jobs end.
  Ledger now_, claimed_, soon_;
  std::vector<Holder> holders_;  // the running jobs, then those started now
  std::vector<size_t> by_end_;   // holders_ by end
  size_t running_ = 0;
  std::vector<bool> within_nominal_;
  std::vector<Reservation> reservations_;
  std::vector<QueueState> queues_;
  // By cohort: the queues whose head's room is kept (head_shields), and
  // ShieldsOf's answer for the job whose turn it is.
  std::vector<std::vector<int>> shielding_heads_;
  std::vector<int> shields_;
  // With a fair-share history, only this queue's head reserves (rule 4 of
  // fair_share_policy.h); -1: the first blocked head in turn order does.
  int reserver_ = -1;
  mutable absl::flat_hash_map<Amounts, std::string> demand_text_;  // Lead's cache
  // ExplainBehind's words for each way a job behind a head fails, while
  // what is in use stays the same (Commit clears it).
  struct BlockKey {
    int queue;
    int reservation;
    Block::Kind kind;
    int dim;
    int kept_for;
    Amounts demand;
    friend bool operator==(const BlockKey&, const BlockKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const BlockKey& k) {
      return H::combine(std::move(h), k.queue, k.reservation, k.kind, k.dim, k.kept_for,
                        k.demand);
    }
  };
  struct BlockWords {
    std::string block;
    DecisionTrace trace;
  };
  absl::flat_hash_map<BlockKey, BlockWords> behind_cache_;
  // Why jobs wait, into Decision::waiting once the round ends (cheaper than
  // a map insert each).
  // By the job's index in snapshot.pending, so that the round ends without
  // sorting them when the snapshot lists its jobs by seq (dlpd's does).
  std::vector<PendingExplanation> waiting_;
  std::vector<char> explained_;
  // Elastic jobs at the size they wait for (TryStartElastic), and the index
  // in snapshot.pending of the job each stands for.
  std::deque<PendingJob> sized_;
  absl::flat_hash_map<const PendingJob*, size_t> sized_origin_;
  PendingExplanation& Explain(const PendingJob& job) {
    auto sized = sized_origin_.find(&job);
    const size_t i = sized != sized_origin_.end()
                         ? sized->second
                         : static_cast<size_t>(&job - snapshot_.pending.data());
    explained_[i] = 1;
    return waiting_[i];
  }
};

}  // namespace dlp::server::fair_share
