// Elastic jobs in a FairShareRound (fair_share_policy.h, rules 3 and 5, and
// growth): an elastic job starts at the largest size from its whole down to
// its minimum that passes rule 3; a blocked one waits (and reserves, and
// preempts) for its minimum. The workers an elastic job runs above its
// minimum are lent: a head that waits for room takes them back (the jobs
// shrink) before it reserves or preempts, and before whole jobs are
// preempted, elastic candidates shrink toward their minimum. After every
// queue's turn, running elastic jobs grow into what is still free: on no
// GPU a reservation claims, and beside the claims of the reservations that
// start within an interval. A job is resized at most once per
// Snapshot::resize_interval, but for a job that could preempt it.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/explanation.h"
#include "server/scheduler/fair_share_round.h"
#include "server/scheduler/preemption_choice.h"

namespace dlp::server::fair_share {

FairShareRound::Attempt FairShareRound::TryStartElastic(const PendingJob& job, int queue,
                                                        const PendingJob*& tried,
                                                        Amounts& tried_demand) {
  Attempt attempt;
  for (int size = job.elastic.max - 1; size >= job.elastic.min; --size) {
    PendingJob sized = AtSize(job, size);
    const Amounts demand = model_.AmountsOf(sized.demand);
    attempt = TryStart(sized, queue, demand);
    if (attempt.started) return attempt;
    if (size == job.elastic.min) {
      sized_.push_back(std::move(sized));
      sized_origin_[&sized_.back()] = static_cast<size_t>(&job - snapshot_.pending.data());
      tried = &sized_.back();
      tried_demand = demand;
    }
  }
  return attempt;
}

std::vector<FairShareRound::Shrink> FairShareRound::PlanShrinks(
    const PendingJob& job, int queue, const Amounts& demand, const std::vector<size_t>& candidates,
    Ledger& ledger, bool& fits) {
  std::vector<size_t> elastic;
  for (size_t i : candidates) {
    const Holder& h = holders_[i];
    if (h.elastic.elastic() && !h.resizing && h.size > h.elastic.min) elastic.push_back(i);
  }
  // Lowest priority first; then those with no time limit (slowed down, a job
  // with one might not finish within it); then the most recently grown (or
  // started).
  std::stable_sort(elastic.begin(), elastic.end(), [&](size_t a, size_t b) {
    const Holder& x = holders_[a];
    const Holder& y = holders_[b];
    if (x.priority != y.priority) return x.priority < y.priority;
    const bool x_unbounded = x.end == absl::InfiniteFuture();
    if (x_unbounded != (y.end == absl::InfiniteFuture())) return x_unbounded;
    return x.resized > y.resized;
  });
  std::vector<Shrink> shrinks;
  fits = FitsIn(model_, ledger, job, queue, demand);
  for (size_t i : elastic) {
    if (fits) break;
    const Holder& h = holders_[i];
    const Amounts one = model_.AmountsOf(h.elastic.per_replica);
    int to = h.size;
    while (!fits && to > h.elastic.min) {
      --to;
      model_.Give(ledger, h.queue, one);
      RemoveShares(ledger.devices, PlacementDropped(h.elastic, h.placement, to));
      AddShares(ledger.devices, PlacementDropped(h.elastic, h.placement, to + 1));
      fits = FitsIn(model_, ledger, job, queue, demand);
    }
    shrinks.push_back({i, to});
  }
  return shrinks;
}
std::optional<std::vector<size_t>> FairShareRound::ShrinkThenChooseVictims(
    const PendingJob& job, int queue, const Amounts& demand, const std::vector<size_t>& candidates,
    Ledger& ledger, std::vector<Shrink>& shrinks) {
  bool fits = false;
  shrinks = PlanShrinks(job, queue, demand, candidates, ledger, fits);
  std::vector<std::pair<Amounts, std::vector<ReplicaPlacement>>> before;
  for (const Shrink& s : shrinks) {
    Holder& h = holders_[s.holder];
    before.emplace_back(h.demand, h.placement);
    const Amounts freed = model_.AmountsOf(ReplicasDemand(h.elastic, h.size - s.to));
    for (size_t d = 0; d < h.demand.size(); ++d) h.demand[d] -= freed[d];
    h.placement = PlacementAtSize(h.elastic, h.placement, s.to);
  }
  std::optional<std::vector<size_t>> victims;
  if (fits) {
    victims.emplace();
  } else {
    victims = ChooseVictims(model_, ledger, holders_, candidates, job, queue, demand);
  }
  for (size_t k = 0; k < shrinks.size(); ++k) {  // ApplyShrink shrinks them for good
    std::tie(holders_[shrinks[k].holder].demand, holders_[shrinks[k].holder].placement) =
        before[k];
  }
  return victims;
}

void FairShareRound::ApplyShrink(const Shrink& shrink, const PendingJob& job) {
  Holder& h = holders_[shrink.holder];
  const int from = h.size;
  const Amounts freed = model_.AmountsOf(ReplicasDemand(h.elastic, from - shrink.to));
  model_.Give(soon_, h.queue, freed);
  RemoveShares(soon_.devices, PlacementDropped(h.elastic, h.placement, shrink.to));
  for (size_t d = 0; d < h.demand.size(); ++d) h.demand[d] -= freed[d];
  h.placement = PlacementAtSize(h.elastic, h.placement, shrink.to);
  h.size = shrink.to;
  h.resizing = true;
  behind_cache_.clear();
  decision_.resize.push_back({.seq = h.seq,
                              .from = from,
                              .to = shrink.to,
                              .placement = h.placement,
                              .for_job = job.seq,
                              .reason = ShrinkReason(from, shrink.to, job.seq, job.priority)});
}

bool FairShareRound::ShrinkForRoom(const PendingJob& job, int queue, const Amounts& demand,
                                   std::vector<std::string>& trace, std::string& waiting_text) {
  // What any elastic job holds above its minimum, once an interval has
  // passed since its last resize (so that no job thrashes between sizes).
  std::vector<size_t> candidates;
  for (size_t i = 0; i < running_; ++i) {
    const Holder& h = holders_[i];
    if (!h.elastic.elastic() || h.stopping || h.resizing || h.size <= h.elastic.min ||
        snapshot_.now - h.resized < snapshot_.resize_interval) {
      continue;
    }
    candidates.push_back(i);
  }
  if (candidates.empty()) return false;
  Ledger ledger = BesideReservations();
  bool fits = false;
  const std::vector<Shrink> shrinks = PlanShrinks(job, queue, demand, candidates, ledger, fits);
  if (!fits) return false;
  std::vector<int64_t> seqs;
  for (const Shrink& s : shrinks) {
    if (s.to >= holders_[s.holder].size) continue;
    ApplyShrink(s, job);
    seqs.push_back(holders_[s.holder].seq);
  }
  if (seqs.empty()) return false;  // it fits as it is: room is not what it waits for
  waiting_text = absl::StrCat("shrinking ", JobList(seqs));
  trace.push_back(absl::StrCat("elastic: shrinking ", JobList(seqs),
                               " toward their minimum frees enough; it starts once they have "
                               "re-formed smaller"));
  ReserveNow(job, queue, demand, std::move(seqs));
  return true;
}

void FairShareRound::Grow() {
  // Every waiting job had its turn: what is still free, none of them could
  // use now. A head that could use it later takes it back (ShrinkForRoom).
  std::vector<size_t> growing;
  for (size_t i = 0; i < running_; ++i) {
    const Holder& h = holders_[i];
    if (!h.elastic.elastic() || h.stopping || h.resizing || h.size >= h.elastic.max) continue;
    if (snapshot_.now - h.resized < snapshot_.resize_interval) continue;
    growing.push_back(i);
  }
  // Higher priority first; then the one nearest its time limit (at its
  // minimum it might not finish within it); then the one that started first.
  std::stable_sort(growing.begin(), growing.end(), [&](size_t a, size_t b) {
    const Holder& x = holders_[a];
    const Holder& y = holders_[b];
    if (x.effective_priority != y.effective_priority) {
      return x.effective_priority > y.effective_priority;
    }
    if (x.end != y.end) return x.end < y.end;
    return x.started < y.started;
  });
  for (size_t i : growing) GrowOne(holders_[i]);
}

void FairShareRound::GrowOne(Holder& h) {
  const Amounts one = model_.AmountsOf(h.elastic.per_replica);
  const int from = h.size;
  while (h.size < h.elastic.max) {
    if (model_.Check(now_, h.queue, one, h.preemptible)) break;
    // It runs on past any reservation (it has no end before its own). The
    // amounts of a reservation that starts later than an interval from now
    // do not count: by then the job may shrink (ShrinkForRoom) and give them
    // back. One that starts sooner counts: the replica must fit beside that
    // head's claim, as a backfilled job must. A claimed GPU is never taken
    // (the head's estimate and placement count on that very device).
    std::vector<char> counts(reservations_.size(), 0);
    bool blocked = false;
    for (size_t r = 0; r < reservations_.size() && !blocked; ++r) {
      counts[r] = !EndsBefore(reservations_[r], h.end) &&
                  reservations_[r].at - snapshot_.now < snapshot_.resize_interval;
      blocked = counts[r] && model_.Check(reservations_[r].ledger, h.queue, one);
    }
    if (blocked) break;
    std::vector<ReplicaPlacement> added;
    const std::vector<ReplicaGpuDemand> gpus = GrownGpuDemands(h.elastic, h.size, h.size + 1);
    if (!gpus.empty()) {
      // Only devices no reservation claims: a head's devices stay its own.
      auto placed = PlaceGpus(gpus, model_.devices(), claimed_.devices);
      if (!placed) break;
      RemoveShares(claimed_.devices, *placed);
      for (size_t r = 0; r < reservations_.size() && !blocked; ++r) {
        blocked = counts[r] && !SharesFit(reservations_[r].ledger.devices, *placed);
      }
      if (blocked) break;
      added = std::move(*placed);
    }
    for (Ledger* ledger : {&now_, &claimed_, &soon_}) {
      model_.Take(*ledger, h.queue, one);
      AddShares(ledger->devices, added);
    }
    for (size_t r = 0; r < reservations_.size(); ++r) {
      if (!counts[r]) continue;
      model_.Take(reservations_[r].ledger, h.queue, one);
      AddShares(reservations_[r].ledger.devices, added);
    }
    for (size_t d = 0; d < h.demand.size(); ++d) h.demand[d] += one[d];
    h.placement.insert(h.placement.end(), added.begin(), added.end());
    ++h.size;
  }
  if (h.size == from) return;
  h.resizing = true;
  decision_.resize.push_back({.seq = h.seq,
                              .from = from,
                              .to = h.size,
                              .placement = h.placement,
                              .reason = GrowReason(from, h.size)});
}

}  // namespace dlp::server::fair_share
