// A queue's first job that cannot start becomes its head (fair_share_policy.h,
// rule 4): it reserves what it waits for, or preempts, and its explanation
// says which and why.
#include "server/scheduler/fair_share_round.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/scheduler/explanation.h"
#include "server/scheduler/preemption_choice.h"

namespace dlp::server::fair_share {

void FairShareRound::BecomeHead(const QueuedJob& queued, int queue, const Amounts& demand,
                                const Attempt& attempt) {
  const PendingJob& job = *queued.job;
  QueueState& qs = queues_[queue];
  const size_t reservations_before = reservations_.size();
  qs.head = job.seq;
  qs.blocked = true;
  qs.behind = absl::StrCat("waiting behind job ", job.seq, " in queue ", job.queue);
  PendingExplanation& e = Explain(job);
  e.position = ++qs.waiting;
  const std::string block = BlockText(job, queue, demand, attempt);
  std::vector<std::string> trace;
  trace.push_back(absl::StrFormat(
      "queue %s: head of the queue, effective priority %d (priority %d, +%d for waiting)",
      model_.queue(queue).config.name, queued.effective_priority, job.priority,
      queued.effective_priority - job.priority));
  if (model_.WithinNominal(now_, queue, demand)) {
    trace.push_back("turn: within its queue's nominal quota");
  } else if (!model_.history()) {
    trace.push_back(
        absl::StrFormat("turn: borrows; queue %s's weighted share of what it borrows is %.3f",
                        model_.queue(queue).config.name, model_.BorrowedShare(now_, queue)));
  } else {
    trace.push_back(
        absl::StrFormat("turn: borrows; queue %s's fair-share standing is %.3f (lowest goes first)",
                        model_.queue(queue).config.name, model_.Standing(now_, queue)));
  }
  if (model_.history()) trace.push_back(HistoryText(queue));
  trace.push_back("cannot start now: " + block);
  std::string waiting;
  bool preempting = false;
  bool stopping_frees_enough = false;
  if (attempt.reservation < 0) {
    stopping_frees_enough = FitsIn(model_, soon_, job, queue, demand);
    if (stopping_frees_enough) {
      trace.push_back("preemption: not needed, jobs already stopping free enough");
    } else {
      preempting = ShrinkForRoom(job, queue, demand, trace, waiting) ||
                   Preempt(job, queue, demand, attempt.block, trace, waiting);
    }
  }
  // A head that waits only for jobs already stopping (its victims, most
  // often) keeps what they free whatever the reservation limit, as in the
  // round it preempted them (Kueue's preemptor holds its quota in every cycle
  // until they are gone): else the jobs behind it take that room while they
  // stop, and it preempts them too.
  std::optional<Reservation> r;
  if (stopping_frees_enough) {
    r = Reserve(model_, claimed_, holders_, by_end_, job, queue, demand, snapshot_.now);
    if (r && r->at > snapshot_.now) r.reset();
  }
  const bool others_turn = reserver_ >= 0 && reserver_ != queue;
  if (!preempting && !r &&
      (reservations_.size() >= static_cast<size_t>(kMaxReservations) || others_turn)) {
    std::vector<int64_t> ahead;
    for (const Reservation& r : reservations_) ahead.push_back(r.seq);
    if (ahead.empty()) ahead.push_back(queues_[reserver_].jobs.front().job->seq);
    waiting = absl::StrCat("not reserved yet: ", JobList(ahead), " ahead of it ",
                           ahead.size() == 1 ? "reserves" : "reserve");
    trace.push_back("reservation: " + waiting);
  } else if (!preempting) {
    if (!r) r = Reserve(model_, claimed_, holders_, by_end_, job, queue, demand, snapshot_.now);
    if (!r) {
      waiting =
          "not reserved yet: it does not fit even once the running jobs have ended and "
          "the jobs ahead of it have started";
      trace.push_back("reservation: " + waiting);
    } else {
      model_.Take(claimed_, queue, demand);
      AddShares(claimed_.devices, r->placement);
      if (r->at == absl::InfiniteFuture()) {
        waiting = absl::StrCat("waiting for ", JobList(r->waiting_for),
                               " (no time limit, start unknown)");
      } else if (r->at <= snapshot_.now) {
        // What the stopping jobs free is its: no later head counts on it.
        model_.Take(soon_, queue, demand);
        AddShares(soon_.devices, r->placement);
        if (!r->waiting_for.empty()) {
          waiting = absl::StrCat("waiting for ", JobList(r->waiting_for), " to stop");
        }
      } else {
        e.estimated_start = r->at;
        waiting = absl::StrCat("waiting for ", JobList(r->waiting_for), " (est. start ",
                               StartsIn(r->at, snapshot_.now), ")");
      }
      trace.push_back(absl::StrCat(
          "reservation: ", waiting.empty() ? "starts once reservations ahead allow" : waiting,
          "; jobs behind it may only backfill"));
      reservations_.push_back(std::move(*r));
    }
  }
  std::string reason = Lead(queue, e.position, demand, block);
  // With no queue configured the reason stays as before unless there is more to say.
  if (!waiting.empty() && (!model_.implicit() || preempting || e.estimated_start ||
                           absl::StrContains(waiting, "to stop"))) {
    absl::StrAppend(&reason, "; ", waiting);
  }
  e.reason = std::move(reason);
  e.trace = DecisionTrace(std::move(trace));
  // Unreserved, or reserved for when jobs without a time limit end (a time
  // backfill cannot be held to), and not waiting for victims: the jobs it
  // could preempt leave it the room it waits for all the same (ShieldsOf).
  const bool unknown_start = reservations_.size() == reservations_before ||
                             reservations_.back().at == absl::InfiniteFuture();
  if (!model_.implicit() && unknown_start) {
    qs.head_shields = true;
    qs.head_demand = demand;
    qs.head_priority = job.priority;
    qs.head_effective_priority = queued.effective_priority;
    qs.head_reclaims = ReclaimFrom(model_, soon_, queue, demand).from;
    const size_t cohort = static_cast<size_t>(model_.queue(queue).cohort);
    if (shielding_heads_.size() <= cohort) shielding_heads_.resize(cohort + 1);
    shielding_heads_[cohort].push_back(queue);
  }
}

}  // namespace dlp::server::fair_share
