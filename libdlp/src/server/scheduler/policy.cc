#include "server/scheduler/policy.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dlp::server {
namespace {

// Empty when `demand` fits in `free`; else what is short, e.g.
// "needs 3 CPUs, 1 CPU free".
std::string Shortfall(const ResourceVector& demand, const ResourceVector& free) {
  std::vector<std::string> parts;
  if (demand.cpu_millis > free.cpu_millis) {
    parts.push_back(absl::StrCat("needs ", DescribeCpus(demand.cpu_millis), ", ",
                                 DescribeCpus(std::max<int64_t>(free.cpu_millis, 0)),
                                 " free"));
  }
  if (demand.memory_bytes > 0 && demand.memory_bytes > free.memory_bytes) {
    parts.push_back(absl::StrCat("needs ", DescribeMemory(demand.memory_bytes), " of memory, ",
                                 DescribeMemory(std::max<int64_t>(free.memory_bytes, 0)),
                                 " free"));
  }
  if (demand.gpus > free.gpus) {
    parts.push_back(absl::StrCat("needs ", demand.gpus, demand.gpus == 1 ? " GPU, " : " GPUs, ",
                                 std::max(free.gpus, 0), " free"));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace

absl::Status SchedulingPolicy::Admit(const ResourceVector& demand,
                                     const ResourceVector& capacity) const {
  std::vector<std::string> parts;
  if (demand.cpu_millis > capacity.cpu_millis) {
    parts.push_back(absl::StrCat("needs ", DescribeCpus(demand.cpu_millis),
                                 ", this machine has ", DescribeCpus(capacity.cpu_millis)));
  }
  if (demand.memory_bytes > capacity.memory_bytes) {
    parts.push_back(absl::StrCat("needs ", DescribeMemory(demand.memory_bytes),
                                 " of memory, this machine has ",
                                 DescribeMemory(capacity.memory_bytes)));
  }
  if (demand.gpus > capacity.gpus) {
    parts.push_back(absl::StrCat("needs ", demand.gpus, demand.gpus == 1 ? " GPU" : " GPUs",
                                 ", this machine has ", capacity.gpus));
  }
  if (parts.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the job can never fit: ", absl::StrJoin(parts, "; ")));
}

ScheduleDecision PriorityFifoPolicy::Schedule(const std::vector<PendingJob>& pending,
                                              const ClusterState& cluster) const {
  ScheduleDecision decision;
  std::vector<const PendingJob*> order;
  for (const PendingJob& job : pending) order.push_back(&job);
  std::stable_sort(order.begin(), order.end(), [](const PendingJob* a, const PendingJob* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    return a->seq < b->seq;
  });
  ResourceVector free = cluster.capacity;
  free -= cluster.used;
  free.gpus = static_cast<int>(cluster.free_gpus.size());
  std::vector<int> free_gpus = cluster.free_gpus;
  std::sort(free_gpus.begin(), free_gpus.end());
  std::map<std::string, int64_t> blocked_queues;  // queue -> the job at its head
  for (const PendingJob* job : order) {
    auto blocker = blocked_queues.find(job->queue);
    if (blocker != blocked_queues.end()) {
      decision.waiting[job->seq] = absl::StrCat("waiting behind job ", blocker->second,
                                                " in queue ", job->queue);
      continue;
    }
    std::string shortfall = Shortfall(job->demand, free);
    if (!shortfall.empty()) {
      decision.waiting[job->seq] = "waiting for resources: " + shortfall;
      blocked_queues[job->queue] = job->seq;
      continue;
    }
    GpuAssignment assignment{job->seq, {}};
    assignment.gpus.assign(free_gpus.begin(), free_gpus.begin() + job->demand.gpus);
    free_gpus.erase(free_gpus.begin(), free_gpus.begin() + job->demand.gpus);
    free -= job->demand;
    decision.start.push_back(std::move(assignment));
  }
  return decision;
}

std::unique_ptr<SchedulingPolicy> CreateDefaultPolicy() {
  return std::make_unique<PriorityFifoPolicy>();
}

}  // namespace dlp::server
