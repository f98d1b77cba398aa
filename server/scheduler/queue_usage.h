// Each queue's standing, from a snapshot: what it is guaranteed, uses,
// borrows and lends, how many jobs wait in it and its fair-share value.
// Served by `dlp queue` and used by the policy's explanations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/scheduler/snapshot.h"

namespace dlp::server {

struct QueueStatus {
  QueueConfig config;     // the queue (ImplicitQueue when none is configured)
  ResourceVector used;    // held by its running jobs
  ResourceVector borrowed;  // the part of `used` beyond its nominal quota
  ResourceVector lent;      // its unused nominal quota that other queues use
  int pending = 0;          // its Queued jobs
  int running = 0;          // its Running jobs
  // Weighted dominant share of what it borrows (DRF): the largest fraction
  // of the cohort's lendable resources it borrows, over its weight. 0: none.
  double share = 0;
  // Fair-share history (fair_share_history.h), when the snapshot has one:
  // its decayed average use, that as a percentage of its nominal quota (the
  // largest over gpu, cpu and memory), and the half-life. The policy orders
  // queues by QuotaModel::Standing, which it is part of.
  std::optional<ResourceVector> recent;
  int recent_percent = 0;
  absl::Duration half_life = absl::ZeroDuration();
};

// In the order of snapshot.queues, then implicit queues by name.
std::vector<QueueStatus> QueueStatuses(const Snapshot& snapshot);

}  // namespace dlp::server
