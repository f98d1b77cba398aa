// Preemption for a blocked head (fair_share_policy.h, rule 5): whether it may
// preempt, which running jobs it stops, and what its trace says.
#include "server/scheduler/fair_share_round.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/scheduler/explanation.h"
#include "server/scheduler/preemption_choice.h"

namespace dlp::server::fair_share {

bool FairShareRound::Preempt(const PendingJob& job, int queue, const Amounts& demand,
                             const Block& block, std::vector<std::string>& trace,
                             std::string& waiting_text) {
  if (model_.implicit()) {  // a single user's machine, as before queues: no preemption
    trace.push_back("preemption: off (no queue is configured)");
    return false;
  }
  const QueueQuota& quota = model_.queue(queue);
  const Reclaim reclaim = ReclaimFrom(model_, soon_, queue, demand);
  std::vector<size_t> candidates;
  int exempt = 0;  // candidates but for their age
  const int64_t effective_priority = EffectivePriority(job, snapshot_.now);
  for (size_t i = 0; i < running_; ++i) {
    const Holder& h = holders_[i];
    // An elastic job re-forming is left alone: once it has, it shrinks.
    if (h.stopping || h.resizing || !MayBePreempted(h.preemptible, h.preemptions)) continue;
    if (h.queue == queue ? OutranksInItsQueue(job.priority, effective_priority, h.priority,
                                              h.effective_priority)
                         : reclaim.from[h.queue] && !within_nominal_[i]) {
      if (snapshot_.now - h.started < snapshot_.preempt_exempt_time) {
        ++exempt;
      } else {
        candidates.push_back(i);
      }
    }
  }
  SortCandidates(holders_, candidates);
  // Victims must make room beside the reservations of the heads before it,
  // not only beside the running jobs: else those heads take what the victims
  // free, the victims start again, and it preempts them again, for ever.
  Ledger beside_reservations = BesideReservations();
  // Elastic candidates shrink first; whole jobs are preempted only for
  // what shrinking cannot free (holders_ are at their shrunk size meanwhile).
  std::vector<Shrink> shrinks;
  std::optional<std::vector<size_t>> victims =
      ShrinkThenChooseVictims(job, queue, demand, candidates, beside_reservations, shrinks);
  if (!victims) {
    trace.push_back(absl::StrCat(
        "preemption: ", candidates.size(), " candidates (lower priority in its queue",
        reclaim.any ? ", borrowed by its cohort" : "", "), not enough to fit",
        shrinks.empty() ? "" : " even with the elastic ones at their minimum",
        exempt == 0 ? ""
                    : absl::StrCat("; ", exempt, " more started less than ",
                                   absl::FormatDuration(snapshot_.preempt_exempt_time),
                                   " ago (--preempt-exempt-time)")));
    return false;
  }
  std::vector<int64_t> seqs;
  for (const Shrink& s : shrinks) {
    if (std::find(victims->begin(), victims->end(), s.holder) != victims->end()) continue;
    ApplyShrink(s, job);
    seqs.push_back(holders_[s.holder].seq);
  }
  if (!seqs.empty()) {
    trace.push_back(absl::StrCat("elastic: shrinking ", JobList(seqs), " toward their minimum",
                                 victims->empty() ? " frees enough" : ""));
  }
  const std::string what = model_.dim_name(block.kind == Block::kPlacement ? kGpu : block.dim);
  const size_t shrunk = seqs.size();
  for (size_t v : *victims) {
    Holder& h = holders_[v];
    h.stopping = true;
    model_.Give(soon_, h.queue, h.demand);
    RemoveShares(soon_.devices, h.placement);
    seqs.push_back(h.seq);
    decision_.preempt.push_back({h.seq, job.seq,
                                 h.queue == queue
                                     ? PriorityReason(job.seq, job.priority, quota.config.name)
                                     : ReclaimReason(job.seq, quota.config.name, what)});
  }
  ReserveNow(job, queue, demand, seqs);
  if (shrunk == seqs.size()) {
    waiting_text = absl::StrCat("shrinking ", JobList(seqs));
    trace.push_back("preemption: none needed; it starts once they have re-formed smaller");
    return true;
  }
  waiting_text = absl::StrCat(shrunk > 0 ? "shrinking and " : "", "preempting ",
                              JobList(std::vector<int64_t>(seqs.begin() + shrunk, seqs.end())));
  trace.push_back(absl::StrCat("preemption: ", waiting_text, " of ", candidates.size(),
                               " candidates; it starts once they have stopped"));
  return true;
}

Ledger FairShareRound::BesideReservations() const {
  Ledger ledger = claimed_;
  for (size_t i = 0; i < running_; ++i) {
    if (!holders_[i].stopping) continue;
    model_.Give(ledger, holders_[i].queue, holders_[i].demand);
    RemoveShares(ledger.devices, holders_[i].placement);
  }
  return ledger;
}

// It waits for `seqs`: what they free is reserved for it from now on.
void FairShareRound::ReserveNow(const PendingJob& job, int queue, const Amounts& demand,
                                std::vector<int64_t> seqs) {
  Reservation r{.seq = job.seq, .queue = queue, .at = snapshot_.now,
                .waiting_for = std::move(seqs)};
  DeviceUse use = soon_.devices;
  r.placement =
      PlaceGpus(job.replicas, model_.devices(), use).value_or(std::vector<ReplicaPlacement>{});
  for (Ledger* ledger : {&soon_, &claimed_}) {
    model_.Take(*ledger, queue, demand);
    AddShares(ledger->devices, r.placement);
  }
  r.ledger = soon_;
  reservations_.push_back(std::move(r));
}

}  // namespace dlp::server::fair_share
