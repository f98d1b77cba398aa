// The explanations of the jobs that wait behind a head: their position, what
// blocks them (a reservation, a resource, a quota), and the queue's fair share.
#include "server/scheduler/fair_share_round.h"

#include "absl/strings/str_cat.h"
#include "server/scheduler/explanation.h"

namespace dlp::server::fair_share {

void FairShareRound::ExplainBehind(const PendingJob& job, int queue, const Amounts& demand,
                                   const Attempt& attempt) {
  PendingExplanation& e = Explain(job);
  e.position = ++queues_[queue].waiting;
  // Jobs behind one head mostly fail alike: each distinct block is described
  // once while the use stays the same, and its trace is shared.
  BlockKey key{queue,           attempt.reservation, attempt.block.kind,
               attempt.block.dim, attempt.kept_for,    demand};
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
  if (attempt.kept_for >= 0) {
    return absl::StrCat("the room it would take is kept for job ", queues_[attempt.kept_for].head,
                        " (head of queue ", model_.queue(attempt.kept_for).config.name,
                        "), which would preempt it");
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
