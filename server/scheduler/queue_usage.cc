#include "server/scheduler/queue_usage.h"

#include <algorithm>

#include "server/scheduler/quota_accounting.h"

namespace dlp::server {
namespace {

using fair_share::Amounts;
using fair_share::QuotaModel;

ResourceVector VectorOf(const QuotaModel& model, const Amounts& amounts) {
  ResourceVector out{amounts[fair_share::kCpu], amounts[fair_share::kMemory],
                     amounts[fair_share::kGpu]};
  for (int d = fair_share::kGpu + 1; d < model.dims(); ++d) {
    if (amounts[d] != 0) out.gpu_flavours[model.dim_name(d).substr(4)] = amounts[d];
  }
  return out;
}

}  // namespace

// The cohort model of quota_accounting.h: a queue borrows what it uses beyond
// its nominal quota; what a cohort's queues borrow comes out of the unused
// lendable quota of the others, each lending in proportion to what it has
// unused (so the lent parts add up to the borrowed ones).
std::vector<QueueStatus> QueueStatuses(const Snapshot& snapshot) {
  const QuotaModel model(snapshot);
  fair_share::Ledger ledger = model.EmptyLedger();
  std::vector<QueueStatus> out(model.queue_count());
  for (const RunningJob& job : snapshot.running) {
    const int q = model.QueueIndex(job.queue);
    model.Take(ledger, q, model.AmountsOf(job.demand));
    out[q].used += job.demand;
    ++out[q].running;
  }
  for (const PendingJob& job : snapshot.pending) ++out[model.QueueIndex(job.queue)].pending;
  const int dims = model.dims();
  std::vector<Amounts> borrowed(model.queue_count(), Amounts(dims, 0));
  std::vector<Amounts> unused(model.queue_count(), Amounts(dims, 0));
  std::vector<Amounts> cohort_borrowed, cohort_unused;
  for (int q = 0; q < model.queue_count(); ++q) {
    const fair_share::QueueQuota& quota = model.queue(q);
    if (quota.cohort >= static_cast<int>(cohort_borrowed.size())) {
      cohort_borrowed.resize(quota.cohort + 1, Amounts(dims, 0));
      cohort_unused.resize(quota.cohort + 1, Amounts(dims, 0));
    }
    for (int d = 0; d < dims; ++d) {
      const int64_t used = model.Used(ledger, q, d);
      borrowed[q][d] = std::max<int64_t>(0, used - quota.nominal[d]);
      unused[q][d] = std::min(quota.lendable[d], std::max<int64_t>(0, quota.nominal[d] - used));
      cohort_borrowed[quota.cohort][d] += borrowed[q][d];
      cohort_unused[quota.cohort][d] += unused[q][d];
    }
  }
  for (int q = 0; q < model.queue_count(); ++q) {
    const fair_share::QueueQuota& quota = model.queue(q);
    QueueStatus& s = out[q];
    s.config = quota.config;
    Amounts lent(dims, 0);
    for (int d = 0; d < dims; ++d) {
      const int64_t total = cohort_unused[quota.cohort][d];
      const int64_t taken = std::min(total, cohort_borrowed[quota.cohort][d]);
      if (total > 0) {
        lent[d] = static_cast<int64_t>(static_cast<__int128>(unused[q][d]) * taken / total);
      }
    }
    s.borrowed = VectorOf(model, borrowed[q]);
    s.lent = VectorOf(model, lent);
    s.share = model.BorrowedShare(ledger, q);
    if (model.history()) {
      s.recent = VectorOf(model, quota.history);
      s.recent_percent =
          static_cast<int>(std::min<int64_t>(model.HistoryPercent(q).first, 1000000));
      s.half_life = snapshot.fair_share_half_life;
    }
  }
  return out;
}

}  // namespace dlp::server
