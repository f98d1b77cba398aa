#include "server/scheduler/fair_share_round.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/explanation.h"
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
  Attempt attempt = TryStart(job, queue, demand);
  const PendingJob* tried = &job;  // an elastic job waits at its minimum
  Amounts tried_demand = demand;
  if (!attempt.started && job.elastic.elastic()) {
    attempt = TryStartElastic(job, queue, tried, tried_demand);
  }
  if (attempt.started) return;
  if (qs.blocked) {
    ExplainBehind(*tried, queue, tried_demand, attempt);
  } else {
    BecomeHead({tried, queued.effective_priority, tried_demand}, queue, tried_demand, attempt);
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

void FairShareRound::BecomeHead(const QueuedJob& queued, int queue, const Amounts& demand,
                                const Attempt& attempt) {
  const PendingJob& job = *queued.job;
  QueueState& qs = queues_[queue];
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
  if (attempt.reservation < 0) {
    if (FitsIn(model_, soon_, job, queue, demand)) {
      trace.push_back("preemption: not needed, jobs already stopping free enough");
    } else {
      preempting = ShrinkForRoom(job, queue, demand, trace, waiting) ||
                   Preempt(job, queue, demand, attempt.block, trace, waiting);
    }
  }
  const bool others_turn = reserver_ >= 0 && reserver_ != queue;
  if (!preempting &&
      (reservations_.size() >= static_cast<size_t>(kMaxReservations) || others_turn)) {
    std::vector<int64_t> ahead;
    for (const Reservation& r : reservations_) ahead.push_back(r.seq);
    if (ahead.empty()) ahead.push_back(queues_[reserver_].jobs.front().job->seq);
    waiting = absl::StrCat("not reserved yet: ", JobList(ahead), " ahead of it ",
                           ahead.size() == 1 ? "reserves" : "reserve");
    trace.push_back("reservation: " + waiting);
  } else if (!preempting) {
    std::optional<Reservation> r =
        Reserve(model_, claimed_, holders_, by_end_, job, queue, demand, snapshot_.now);
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
}

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
  for (size_t i = 0; i < running_; ++i) {
    const Holder& h = holders_[i];
    // An elastic job re-forming is left alone: once it has, it shrinks.
    if (h.stopping || h.resizing || !h.preemptible || h.preemptions >= kMaxPreemptionsOfAJob) {
      continue;
    }
    if (h.queue == queue ? h.priority < job.priority &&
                               h.effective_priority < EffectivePriority(job, snapshot_.now)
                         : reclaim.from[h.queue] && !within_nominal_[i]) {
      candidates.push_back(i);
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
        shrinks.empty() ? "" : " even with the elastic ones at their minimum"));
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

void FairShareRound::ExplainBehind(const PendingJob& job, int queue, const Amounts& demand,
                                   const Attempt& attempt) {
  PendingExplanation& e = Explain(job);
  e.position = ++queues_[queue].waiting;
  // Jobs behind one head mostly fail alike: each distinct block is described
  // once while the use stays the same, and its trace is shared.
  BlockKey key{queue, attempt.reservation, attempt.block.kind, attempt.block.dim, demand};
  auto [it, added] = behind_cache_.try_emplace(std::move(key));
  const std::string& behind = queues_[queue].behind;
  if (added) {
    it->second.block = BlockText(job, queue, demand, attempt);
    it->second.trace = DecisionTrace(
        {absl::StrCat(behind, "; tried for backfill"), "cannot backfill: " + it->second.block});
  }
  // With no queue configured the reason stays as before: who it waits behind.
  e.reason = model_.implicit()
                 ? behind
                 : absl::StrCat(Lead(queue, e.position, demand), it->second.block, "; ", behind);
  e.trace = it->second.trace;
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

std::string FairShareRound::BlockText(const PendingJob& job, int queue, const Amounts& demand,
                                      const Attempt& attempt) const {
  if (attempt.reservation >= 0) {
    const Reservation& r = reservations_[attempt.reservation];
    std::string out = absl::StrCat("waiting for resources reserved for job ", r.seq);
    if (r.at != absl::InfiniteFuture() && r.at > snapshot_.now) {
      absl::StrAppend(&out, " (est. start ", StartsIn(r.at, snapshot_.now), ")");
    }
    return out;
  }
  return DescribeBlock(model_, now_, queue, demand, job.demand, attempt.block);
}

std::string FairShareRound::HistoryText(int queue) const {
  const auto [percent, dim] = model_.HistoryPercent(queue);
  return absl::StrCat("fair share: queue ", model_.queue(queue).config.name, " is ",
                      percent < 100   ? "behind"
                      : percent > 100 ? "ahead of"
                                      : "at",
                      " its share: used ", percent, "% of its nominal ", model_.dim_name(dim),
                      " over the last ~", absl::FormatDuration(snapshot_.fair_share_half_life),
                      " (half-life)");
}

std::string FairShareRound::Lead(int queue, int position, const Amounts& demand,
                                 absl::string_view then) const {
  if (model_.implicit()) return std::string(then);
  // Few distinct demands wait: describe each once a round.
  auto [it, added] = demand_text_.try_emplace(demand);
  if (added) it->second = model_.DescribeDemand(demand);
  return absl::StrCat(Ordinal(position), " in queue ", model_.queue(queue).config.name, "; needs ",
                      it->second, "; ", then);
}

}  // namespace dlp::server::fair_share
