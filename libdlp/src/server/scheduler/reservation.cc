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

std::optional<Reservation> Reserve(const QuotaModel& model, Ledger base,
                                   const std::vector<Holder>& holders,
                                   const std::vector<size_t>& by_end, const PendingJob& job,
                                   int queue, const Amounts& demand, absl::Time now) {
  Reservation r{.seq = job.seq, .queue = queue, .at = now};
  std::vector<int64_t> stopping;
  auto fits = [&](const Holder* last) {
    if (model.Check(base, queue, demand, job.preemptible)) return false;
    DeviceUse use = base.devices;
    std::optional<std::vector<ReplicaPlacement>> placement =
        PlaceGpus(job.replicas, model.devices(), use);
    if (!placement) return false;
    // Only what is still needed: the stopping ones, and the last to end.
    r.waiting_for = stopping;
    if (last != nullptr) {
      r.waiting_for.push_back(last->seq);
      r.at = std::max(now, last->end);
    }
    model.Take(base, queue, demand);
    base.devices = std::move(use);
    r.placement = std::move(*placement);
    r.ledger = std::move(base);
    return true;
  };
  if (fits(nullptr)) return r;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i : by_end) {
      const Holder& h = holders[i];
      if (h.stopping != (pass == 0)) continue;
      model.Give(base, h.queue, h.demand);
      RemoveShares(base.devices, h.placement);
      if (h.stopping) stopping.push_back(h.seq);
      if (fits(h.stopping ? nullptr : &h)) return r;
    }
  }
  return std::nullopt;
}

bool LeavesUndelayed(const QuotaModel& model, const Reservation& r, absl::Time end, int queue,
                     const Amounts& demand, const std::vector<ReplicaPlacement>& placement,
                     bool& counts) {
  counts = false;
  if (end != absl::InfiniteFuture() && r.at != absl::InfiniteFuture() && end <= r.at) {
    return true;
  }
  if (model.Check(r.ledger, queue, demand)) return false;
  if (!SharesFit(r.ledger.devices, placement)) return false;
  counts = true;
  return true;
}

}  // namespace dlp::server::fair_share
