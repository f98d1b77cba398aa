#include "server/scheduler/fair_share_round.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/preemption_choice.h"

namespace dlp::server::fair_share {

bool FairShareRound::Key::operator>(const Key& o) const {
  if (borrows != o.borrows) return borrows;
  if (share != o.share) return share > o.share;
  if (effective_priority != o.effective_priority) {
    return effective_priority < o.effective_priority;
  }
  if (seq != o.seq) return seq > o.seq;
  return queue > o.queue;
}

FairShareRound::FairShareRound(const Snapshot& snapshot)
    : snapshot_(snapshot), model_(snapshot), queues_(model_.queue_count()) {
  now_ = model_.EmptyLedger();
  for (const RunningJob& r : snapshot.running) {
    Holder h{.seq = r.seq,
             .queue = model_.QueueIndex(r.queue),
             .priority = r.priority,
             .demand = model_.AmountsOf(r.demand),
             .placement = r.placement,
             .started = r.started,
             .end = r.time_limit > absl::ZeroDuration() ? r.started + r.time_limit
                                                        : absl::InfiniteFuture(),
             .preemptible = r.preemptible,
             .stopping = r.stopping,
             .effective_priority = EffectivePriority(r.priority, r.submitted, snapshot.now),
             .preemptions = r.preemptions,
             .elastic = r.elastic,
             .size = r.size,
             .resized = r.resized,
             .resizing = r.resizing_to > 0};
    model_.Take(now_, h.queue, h.demand);
    AddShares(now_.devices, h.placement);
    holders_.push_back(std::move(h));
  }
  running_ = holders_.size();
  for (size_t i = 0; i < running_; ++i) by_end_.push_back(i);
  std::stable_sort(by_end_.begin(), by_end_.end(),
                   [&](size_t a, size_t b) { return holders_[a].end < holders_[b].end; });
  within_nominal_ = WithinNominalHolders(model_, holders_);
  claimed_ = soon_ = now_;
  for (size_t i = 0; i < holders_.size(); ++i) {
    const Holder& h = holders_[i];
    const int to = snapshot.running[i].resizing_to;
    if (h.stopping) {
      model_.Give(soon_, h.queue, h.demand);
      RemoveShares(soon_.devices, h.placement);
    } else if (to > 0 && to < h.size) {  // a shrink under way frees the difference
      model_.Give(soon_, h.queue, model_.AmountsOf(ReplicasDemand(h.elastic, h.size - to)));
      RemoveShares(soon_.devices, PlacementDropped(h.elastic, h.placement, to));
    }
  }
  // Each queue's vector sized once: growing them would copy and free large
  // blocks, and free small ones' memory into the allocator's slow path.
  std::vector<int> queue_of(snapshot.pending.size());
  std::vector<size_t> sizes(queues_.size(), 0);
  for (size_t i = 0; i < snapshot.pending.size(); ++i) {
    queue_of[i] = model_.QueueIndex(snapshot.pending[i].queue);
    ++sizes[queue_of[i]];
  }
  for (size_t q = 0; q < queues_.size(); ++q) queues_[q].jobs.reserve(sizes[q]);
  for (size_t i = 0; i < snapshot.pending.size(); ++i) {
    const PendingJob& job = snapshot.pending[i];
    queues_[queue_of[i]].jobs.push_back(
        {&job, EffectivePriority(job, snapshot.now), model_.AmountsOf(job.demand)});
  }
  for (QueueState& q : queues_) SortQueue(q.jobs);
  if (model_.history()) reserver_ = LongestWaitingBlockedQueue();
  waiting_.resize(snapshot.pending.size());
  explained_.assign(snapshot.pending.size(), 0);
}

int FairShareRound::LongestWaitingBlockedQueue() const {
  int found = -1;
  const PendingJob* oldest = nullptr;
  for (int q = 0; q < model_.queue_count(); ++q) {
    if (queues_[q].jobs.empty() || !model_.queue(q).known) continue;
    // Starts only take resources: a first job that does not fit now will
    // not later in the round, and becomes its queue's head.
    const QueuedJob& first = queues_[q].jobs.front();
    if (!model_.Check(now_, q, first.demand, first.job->preemptible)) continue;
    const PendingJob& job = *first.job;
    if (oldest == nullptr || job.submitted < oldest->submitted ||
        (job.submitted == oldest->submitted && job.seq < oldest->seq)) {
      oldest = &job;
      found = q;
    }
  }
  return found;
}

FairShareRound::Key FairShareRound::KeyOf(int queue) const {
  const QueuedJob& next = queues_[queue].jobs[queues_[queue].next];
  const bool borrows = !model_.WithinNominal(now_, queue, next.demand);
  return {borrows, borrows ? model_.Standing(now_, queue) : 0.0, next.effective_priority,
          next.job->seq, queue};
}

Decision FairShareRound::Run() {
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> turns;
  for (int q = 0; q < model_.queue_count(); ++q) {
    if (!queues_[q].jobs.empty()) turns.push(KeyOf(q));
  }
  while (!turns.empty()) {
    const int q = turns.top().queue;
    turns.pop();
    Turn(q);
    if (queues_[q].next < queues_[q].jobs.size()) turns.push(KeyOf(q));
  }
  Grow();
  const std::vector<PendingJob>& pending = snapshot_.pending;
  std::vector<size_t> order;
  order.reserve(pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    if (explained_[i]) order.push_back(i);
  }
  auto by_seq = [&](size_t a, size_t b) { return pending[a].seq < pending[b].seq; };
  if (!std::is_sorted(order.begin(), order.end(), by_seq)) {
    std::sort(order.begin(), order.end(), by_seq);
  }
  for (size_t i : order) {
    decision_.waiting.emplace_hint(decision_.waiting.end(), pending[i].seq, std::move(waiting_[i]));
  }
  return std::move(decision_);
}

void FairShareRound::Turn(int queue) {
  QueueState& qs = queues_[queue];
  const QueuedJob& queued = qs.jobs[qs.next++];
  const PendingJob& job = *queued.job;
  const Amounts& demand = queued.demand;
  if (!model_.queue(queue).known) {
    std::vector<std::string> names;
    for (const QueueConfig& c : snapshot_.queues) names.push_back(c.name);
    PendingExplanation& e = Explain(job);
    e.position = ++qs.waiting;
    e.reason =
        absl::StrCat("queue ", job.queue, " does not exist; queues: ", absl::StrJoin(names, ", "));
    e.trace = DecisionTrace({e.reason});
    return;
  }
  if (qs.blocked && qs.backfill_tries >= kBackfillDepth) {
    --qs.next;
    Drain(queue);
    return;
  }
  if (qs.blocked) ++qs.backfill_tries;
  // The room of the heads it must leave counts as in use while it tries:
  // Take and Give add up, so a start in between stays in the ledger.
  ShieldsOf(queue, queued, demand, shields_);
  for (int q : shields_) model_.Take(now_, q, queues_[q].head_demand);
  Attempt attempt = TryStart(job, queue, demand);
  const PendingJob* tried = &job;  // an elastic job waits at its minimum
  Amounts tried_demand = demand;
  if (!attempt.started && job.elastic.elastic()) {
    attempt = TryStartElastic(job, queue, tried, tried_demand);
  }
  for (int q : shields_) model_.Give(now_, q, queues_[q].head_demand);
  if (attempt.started) return;
  if (!shields_.empty() && attempt.reservation < 0 && attempt.block.kind != Block::kPlacement) {
    // What stops it without those heads' room counted, if anything does.
    attempt.block = model_.Check(now_, queue, tried_demand, job.preemptible);
    if (!attempt.block) attempt.kept_for = shields_.front();
  }
  if (qs.blocked) {
    ExplainBehind(*tried, queue, tried_demand, attempt);
  } else {
    BecomeHead({tried, queued.effective_priority, tried_demand}, queue, tried_demand, attempt);
  }
}

void FairShareRound::ShieldsOf(int queue, const QueuedJob& queued, const Amounts& demand,
                               std::vector<int>& out) const {
  out.clear();
  const PendingJob& job = *queued.job;
  // Without configured queues nothing is preempted: plain backfill.
  if (model_.implicit() || !MayBePreempted(job.preemptible, job.preemptions)) return;
  const QueueState& own = queues_[queue];
  if (own.head_shields && OutranksInItsQueue(own.head_priority, own.head_effective_priority,
                                             job.priority, queued.effective_priority)) {
    out.push_back(queue);
  }
  const size_t cohort = static_cast<size_t>(model_.queue(queue).cohort);
  if (cohort >= shielding_heads_.size() || model_.WithinNominal(now_, queue, demand)) return;
  for (int q : shielding_heads_[cohort]) {
    if (q != queue && queues_[q].head_reclaims[queue]) out.push_back(q);
  }
}

FairShareRound::Attempt FairShareRound::TryStart(const PendingJob& job, int queue,
                                                 const Amounts& demand) {
  if (Block block = model_.Check(now_, queue, demand, job.preemptible)) {
    return {.block = block};
  }
  // Reservations by totals first, so that GPUs are placed only for a job
  // that may start as far as they are concerned.
  const absl::Time end = job.time_limit > absl::ZeroDuration() ? snapshot_.now + job.time_limit
                                                               : absl::InfiniteFuture();
  std::vector<char> counts(reservations_.size(), 0);
  for (size_t i = 0; i < reservations_.size(); ++i) {
    counts[i] = !EndsBefore(reservations_[i], end);
    if (counts[i] && model_.Check(reservations_[i].ledger, queue, demand)) {
      return {.reservation = static_cast<int>(i)};
    }
  }
  std::vector<ReplicaPlacement> placement;
  if (!job.replicas.empty()) {
    // Devices no reservation claims first, then any free one. PlaceGpus
    // changes the use it is given only when it places: that is undone here,
    // and Commit adds the placement to every ledger.
    DeviceUse* use = &claimed_.devices;
    auto placed = PlaceGpus(job.replicas, model_.devices(), *use);
    if (!placed) {
      use = &now_.devices;
      placed = PlaceGpus(job.replicas, model_.devices(), *use);
    }
    if (!placed) return {.block = {Block::kPlacement}};
    RemoveShares(*use, *placed);
    placement = std::move(*placed);
    for (size_t i = 0; i < reservations_.size(); ++i) {
      if (counts[i] && !SharesFit(reservations_[i].ledger.devices, placement)) {
        return {.reservation = static_cast<int>(i)};
      }
    }
  }
  Commit(job, queue, demand, std::move(placement), counts);
  return {.started = true};
}

void FairShareRound::Commit(const PendingJob& job, int queue, const Amounts& demand,
                            std::vector<ReplicaPlacement> placement,
                            const std::vector<char>& counts) {
  behind_cache_.clear();  // what is in use changes: so do the blocks' words
  for (Ledger* ledger : {&now_, &claimed_, &soon_}) {
    model_.Take(*ledger, queue, demand);
    AddShares(ledger->devices, placement);
  }
  for (size_t i = 0; i < reservations_.size(); ++i) {
    if (!counts[i]) continue;
    model_.Take(reservations_[i].ledger, queue, demand);
    AddShares(reservations_[i].ledger.devices, placement);
  }
  const absl::Time end = job.time_limit > absl::ZeroDuration() ? snapshot_.now + job.time_limit
                                                               : absl::InfiniteFuture();
  const int size = !job.elastic.elastic() ? 0 : job.size > 0 ? job.size : job.elastic.max;
  holders_.push_back({job.seq, queue, job.priority, demand, placement, snapshot_.now, end,
                      job.preemptible, false, EffectivePriority(job, snapshot_.now),
                      job.preemptions, job.elastic, size, snapshot_.now, true});
  by_end_.insert(std::upper_bound(by_end_.begin(), by_end_.end(), end,
                                  [&](absl::Time t, size_t i) { return t < holders_[i].end; }),
                 holders_.size() - 1);
  decision_.start.push_back({job.seq, std::move(placement), size});
}

void FairShareRound::Drain(int queue) {
  QueueState& qs = queues_[queue];
  const DecisionTrace trace(
      {absl::StrCat(qs.behind, "; not tried for backfill this round (at most ", kBackfillDepth,
                    " behind a head are)")});
  for (; qs.next < qs.jobs.size(); ++qs.next) {
    const QueuedJob& queued = qs.jobs[qs.next];
    PendingExplanation& e = Explain(*queued.job);
    e.position = ++qs.waiting;
    e.reason = model_.implicit() ? qs.behind : Lead(queue, e.position, queued.demand, qs.behind);
    e.trace = trace;
  }
}

}  // namespace dlp::server::fair_share
