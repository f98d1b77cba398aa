// A queue as the scheduler sees it (Kueue's ClusterQueue in dlp's words):
// a nominal quota that is guaranteed, what it may borrow from and lend to the
// other queues of its cohort, a weight for fair sharing of what is borrowed,
// and the priorities its jobs may use. Stored by QueueStore, configured with
// `dlp admin queue` or `dlpd --config`.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "server/scheduler/resources.h"

namespace dlp::server {

struct QueueConfig {
  std::string name;
  std::string cohort;      // empty: none (borrows and lends nothing)
  ResourceVector nominal;  // guaranteed to this queue's jobs
  // Most it may use beyond nominal, from what its cohort lends; unset: no limit.
  std::optional<ResourceVector> borrowing_limit;
  // Most of its unused nominal it lends to its cohort; unset: all of it.
  std::optional<ResourceVector> lending_limit;
  int weight = 1;  // fair share of borrowed resources (DRF) is weighted by it
  int min_priority = INT_MIN;  // jobs outside [min, max] are refused at submit
  int max_priority = INT_MAX;
  friend bool operator==(const QueueConfig&, const QueueConfig&) = default;
};

// With no queue configured, each queue a job names behaves as today: a queue
// named `name` with the whole machine as its nominal quota and no cohort.
QueueConfig ImplicitQueue(const std::string& name, const ResourceVector& capacity);

}  // namespace dlp::server
