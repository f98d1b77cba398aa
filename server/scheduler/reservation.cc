#include "server/scheduler/reservation.h"

#include <algorithm>

namespace dlp::server::fair_share {

void AddShares(DeviceUse& use, const std::vector<ReplicaPlacement>& placement) {
  for (const ReplicaPlacement& p : placement) {
    for (const GpuShare& share : p.gpus) use[share.device] += share.millis;
  }
}

void RemoveShares(DeviceUse& use, const std::vector<ReplicaPlacement>& placement) {
  for (const ReplicaPlacement& p : placement) {
    for (const GpuShare& share : p.gpus) use[share.device] -= share.millis;
  }
}

bool SharesFit(const DeviceUse& use, const std::vector<ReplicaPlacement>& placement) {
  DeviceUse added;
  for (const ReplicaPlacement& p : placement) {
    for (const GpuShare& share : p.gpus) {
      auto it = use.find(share.device);
      const int64_t now = it == use.end() ? 0 : it->second;
      if (now + (added[share.device] += share.millis) > 1000) return false;
    }
  }
  return true;
}

std::optional<Reservation> Reserve(const QuotaModel& model, const Ledger& base,
                                   const std::vector<Holder>& holders,
                                   const std::vector<size_t>& by_end, const PendingJob& job,
                                   int queue, const Amounts& demand, absl::Time now) {
  // The release order: stopping holders first, then by end.
  std::vector<size_t> order;
  order.reserve(by_end.size());
  for (size_t i : by_end) {
    if (holders[i].stopping) order.push_back(i);
  }
  const size_t stopping = order.size();
  for (size_t i : by_end) {
    if (!holders[i].stopping) order.push_back(i);
  }
  // Totals first, on a ledger without devices (cheap to copy and to update);
  // the devices only from the first point where the totals fit.
  Ledger ledger{base.free, {}, base.used, base.over};
  size_t k = 0;  // holders released
  while (model.Check(ledger, queue, demand, job.preemptible)) {
    if (k == order.size()) return std::nullopt;
    model.Give(ledger, holders[order[k]].queue, holders[order[k]].demand);
    ++k;
  }
  ledger.devices = base.devices;
  for (size_t j = 0; j < k; ++j) RemoveShares(ledger.devices, holders[order[j]].placement);
  for (;; ++k) {
    if (!model.Check(ledger, queue, demand, job.preemptible)) {
      if (auto placement = PlaceGpus(job.replicas, model.devices(), ledger.devices)) {
        Reservation r{.seq = job.seq, .queue = queue, .at = now};
        // Only what is still needed: the stopping ones, and the last to end.
        for (size_t j = 0; j < std::min(k, stopping); ++j) {
          r.waiting_for.push_back(holders[order[j]].seq);
        }
        if (k > stopping) {
          const Holder& last = holders[order[k - 1]];
          r.waiting_for.push_back(last.seq);
          r.at = std::max(now, last.end);
        }
        model.Take(ledger, queue, demand);  // its devices: PlaceGpus took them
        r.placement = std::move(*placement);
        r.ledger = std::move(ledger);
        return r;
      }
    }
    if (k == order.size()) return std::nullopt;
    const Holder& h = holders[order[k]];
    model.Give(ledger, h.queue, h.demand);
    RemoveShares(ledger.devices, h.placement);
  }
}

bool EndsBefore(const Reservation& r, absl::Time end) {
  return end != absl::InfiniteFuture() && r.at != absl::InfiniteFuture() && end <= r.at;
}

}  // namespace dlp::server::fair_share
