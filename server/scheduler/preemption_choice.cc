#include "server/scheduler/preemption_choice.h"

#include <algorithm>
#include <numeric>

namespace dlp::server::fair_share {

std::vector<bool> WithinNominalHolders(const QuotaModel& model,
                                       const std::vector<Holder>& holders) {
  std::vector<size_t> order(holders.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Holder &x = holders[a], &y = holders[b];
    if (x.queue != y.queue) return x.queue < y.queue;
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.started != y.started) return x.started < y.started;
    return x.seq < y.seq;
  });
  std::vector<bool> within(holders.size(), false);
  Ledger ledger = model.EmptyLedger();
  int queue = -1;
  bool past = false;  // past the prefix of the current queue
  for (size_t i : order) {
    const Holder& h = holders[i];
    if (h.queue != queue) queue = h.queue, past = false;
    if (past || h.stopping) continue;
    if (!model.WithinNominal(ledger, h.queue, h.demand)) {
      past = true;
      continue;
    }
    model.Take(ledger, h.queue, h.demand);
    within[i] = true;
  }
  return within;
}

Reclaim ReclaimFrom(const QuotaModel& model, const Ledger& soon, int queue, const Amounts& demand) {
  Reclaim out;
  out.from.assign(model.queue_count(), false);
  const int cohort = model.queue(queue).cohort;
  const bool within = model.WithinNominal(soon, queue, demand);
  out.any = model.shared_cohort(cohort) && (within || model.BelowNominal(soon, queue, demand));
  if (!out.any) return out;
  const double share_after = within ? 0 : model.Standing(soon, queue, demand);
  for (int q = 0; q < model.queue_count(); ++q) {
    out.from[q] = q != queue && model.queue(q).cohort == cohort &&
                  (within || share_after < model.Standing(soon, q));
  }
  return out;
}

void SortCandidates(const std::vector<Holder>& holders, std::vector<size_t>& candidates) {
  std::sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
    const Holder &x = holders[a], &y = holders[b];
    if (x.priority != y.priority) return x.priority < y.priority;
    if (x.started != y.started) return x.started > y.started;
    return x.seq > y.seq;
  });
}

bool FitsIn(const QuotaModel& model, Ledger& ledger, const PendingJob& job, int queue,
            const Amounts& demand) {
  if (model.Check(ledger, queue, demand, job.preemptible)) return false;
  if (job.replicas.empty()) return true;
  // PlaceGpus changes the use only when it places: undone, so no copy is needed.
  std::optional<std::vector<ReplicaPlacement>> placed =
      PlaceGpus(job.replicas, model.devices(), ledger.devices);
  if (!placed) return false;
  RemoveShares(ledger.devices, *placed);
  return true;
}

std::optional<std::vector<size_t>> ChooseVictims(const QuotaModel& model, const Ledger& soon,
                                                 const std::vector<Holder>& holders,
                                                 const std::vector<size_t>& candidates,
                                                 const PendingJob& job, int queue,
                                                 const Amounts& demand) {
  Ledger ledger = soon;
  auto release = [&](size_t i) {
    model.Give(ledger, holders[i].queue, holders[i].demand);
    RemoveShares(ledger.devices, holders[i].placement);
  };
  auto restore = [&](size_t i) {
    model.Take(ledger, holders[i].queue, holders[i].demand);
    AddShares(ledger.devices, holders[i].placement);
  };
  for (size_t i : candidates) {
    release(i);
    const bool fits = FitsIn(model, ledger, job, queue, demand);
    restore(i);
    if (fits) return std::vector<size_t>{i};
  }
  std::vector<size_t> chosen;
  for (size_t i : candidates) {
    release(i);
    chosen.push_back(i);
    if (FitsIn(model, ledger, job, queue, demand)) break;
  }
  if (chosen.empty() || !FitsIn(model, ledger, job, queue, demand)) return std::nullopt;
  // The last one chosen was needed; any earlier one may not have been.
  for (size_t k = chosen.size() - 1; k-- > 0;) {
    restore(chosen[k]);
    if (FitsIn(model, ledger, job, queue, demand)) {
      chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      release(chosen[k]);
    }
  }
  return chosen;
}

}  // namespace dlp::server::fair_share
