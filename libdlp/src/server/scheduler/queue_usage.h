// Each queue's standing, from a snapshot: what it is guaranteed, uses,
// borrows and lends, how many jobs wait in it and its fair-share value.
// Served by `dlp queue` and used by the policy's explanations.
#pragma once

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
};

// In the order of snapshot.queues, then implicit queues by name.
std::vector<QueueStatus> QueueStatuses(const Snapshot& snapshot);

}  // namespace dlp::server
