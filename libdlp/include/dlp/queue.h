// Queues of a shared dlpd: quotas of CPUs, memory and GPUs that the scheduler
// guarantees, lends and lets borrow within a cohort (docs/scheduling.md).
// The owner configures them (`dlp admin queue`, `dlpd --config`); everyone
// sees their standing (`dlp queue`). The Client functions are in dlp/client.h.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/spec.h"  // the quantity parsers

namespace dlp {

// An amount of each resource: CPUs in millis, memory in bytes, GPUs in
// milli-GPUs (1000: one GPU), and the part of the GPUs of a flavour
// ("h100": what `gpu.h100=2` names).
struct QueueResources {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;
  int64_t gpu_millis = 0;
  std::map<std::string, int64_t> gpu_flavours;
  friend bool operator==(const QueueResources&, const QueueResources&) = default;
};

struct Queue {
  std::string name;    // as a job's spec.queue
  std::string cohort;  // empty: none (borrows and lends nothing)
  QueueResources nominal;
  std::optional<QueueResources> borrowing_limit;  // unset: no limit
  std::optional<QueueResources> lending_limit;    // unset: lends all it does not use
  int weight = 1;
  int min_priority = INT_MIN;  // jobs whose priority is outside are refused
  int max_priority = INT_MAX;
  friend bool operator==(const Queue&, const Queue&) = default;
};

// A queue's standing now (`dlp queue`).
struct QueueUsage {
  std::string name;
  std::string cohort;
  QueueResources nominal;
  QueueResources used;      // held by its running jobs
  QueueResources borrowed;  // the part of `used` beyond nominal
  QueueResources lent;      // its unused nominal that other queues use
  int pending = 0;
  int running = 0;
  double share = 0;  // weighted dominant share of what it borrows
  // Fair-share history (docs/scheduling.md), unset when dlpd keeps none
  // (--fair-share-half-life 0): its use averaged over the recent past, use
  // one half-life old counting half; that average as a percentage of its
  // nominal quota (in the resource where it is largest); and the half-life.
  std::optional<QueueResources> recent;
  int recent_percent = 0;
  int64_t half_life_seconds = 0;
};

// "cpu=8,memory=64Gi,gpu=4,gpu.h100=2": each resource at most once, with the
// spec's quantity forms (cpu "500m" or "0.5", memory "64Gi", gpu "0.5").
// InvalidArgument naming the bad entry and what was expected.
absl::StatusOr<QueueResources> ParseQueueResources(std::string_view text);
// The same form, shortest exact spelling, resources with zero left out
// ("cpu=8,memory=64Gi,gpu=4"); "" for nothing.
std::string FormatQueueResources(const QueueResources& resources);
// "-100..1000" as {min, max}; InvalidArgument unless min <= max.
absl::StatusOr<std::pair<int, int>> ParsePriorityRange(std::string_view text);

// The one JSON form of queues (the dlpd API's wire format, `-o json`, and
// the `queues:` of `dlpd --config` in YAML): {"name", "cohort", "nominal":
// {"cpu": 8, "memory": "64Gi", "gpu": 4, "gpu.h100": 2}, "borrowingLimit",
// "lendingLimit" (null: none), "weight", "priorityRange": [min, max] (null:
// any)}. Quantities read as numbers or as the spec's strings.
std::string QueueToJson(const Queue& queue, int indent = -1);
std::string QueuesToJson(const std::vector<Queue>& queues, int indent = -1);  // {"queues":[]}
absl::StatusOr<Queue> QueueFromJson(std::string_view json);
absl::StatusOr<std::vector<Queue>> QueuesFromJson(std::string_view json);
// [{"name","cohort","nominal","used","borrowed","lent","pending","running","share",
//   "recent" (null: no history),"recentPercent","halfLifeSeconds"}]
std::string QueueUsageToJson(const QueueUsage& usage, int indent = -1);
std::string QueueUsagesToJson(const std::vector<QueueUsage>& usages, int indent = -1);
absl::StatusOr<QueueUsage> QueueUsageFromJson(std::string_view json);
absl::StatusOr<std::vector<QueueUsage>> QueueUsagesFromJson(std::string_view json);

}  // namespace dlp
