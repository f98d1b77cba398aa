#include "server/scheduler/policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/scheduler/elastic.h"
#include "server/scheduler/explanation.h"
#include "server/scheduler/fair_share_policy.h"
#include "server/scheduler/gpu_placement.h"

namespace dlp::server {

QueueConfig ImplicitQueue(const std::string& name, const ResourceVector& capacity) {
  QueueConfig queue;
  queue.name = name;
  queue.nominal = capacity;
  return queue;
}

absl::Status SchedulingPolicy::Admit(const PendingJob& whole, const Snapshot& snapshot) const {
  // An elastic job needs only its minimum to run at all.
  const PendingJob job = whole.elastic.elastic() ? AtSize(whole, whole.elastic.min) : whole;
  const ResourceVector& demand = job.demand;
  const ResourceVector& capacity = snapshot.capacity;
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
  if (demand.gpu_millis > capacity.gpu_millis) {
    parts.push_back(absl::StrCat("needs ", DescribeGpus(demand.gpu_millis),
                                 ", this machine has ", capacity.gpu_millis / 1000));
  } else {
    DeviceUse empty;
    if (!PlaceGpus(job.replicas, DevicesOf(snapshot), empty)) {
      parts.push_back("its GPU replicas cannot be placed on this machine's devices");
    }
  }
  if (parts.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the job can never fit", MinimumWords(whole),
                                                 ": ", absl::StrJoin(parts, "; ")));
}

std::string MinimumWords(const PendingJob& job) {
  if (!job.elastic.elastic()) return "";
  return absl::StrCat(" even at its minimum (", job.elastic.role, " minCount ", job.elastic.min,
                      ")");
}

Decision PriorityFifoPolicy::Schedule(const Snapshot& snapshot) const {
  Decision decision;
  std::vector<const PendingJob*> order;
  for (const PendingJob& job : snapshot.pending) order.push_back(&job);
  std::stable_sort(order.begin(), order.end(), [](const PendingJob* a, const PendingJob* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    return a->seq < b->seq;
  });
  ResourceVector free = snapshot.capacity;
  for (const RunningJob& job : snapshot.running) free -= job.demand;
  const std::vector<GpuDevice> devices = DevicesOf(snapshot);
  DeviceUse use = UseOf(snapshot.running);
  std::map<std::string, int64_t> blocked_queues;  // queue -> the job at its head
  std::map<std::string, int> waiting;             // queue -> jobs left waiting so far
  for (const PendingJob* job : order) {
    const int position = waiting[job->queue] + 1;  // if it waits
    auto blocker = blocked_queues.find(job->queue);
    if (blocker != blocked_queues.end()) {
      decision.waiting[job->seq] = {
          absl::StrCat("waiting behind job ", blocker->second, " in queue ", job->queue),
          position};
      ++waiting[job->queue];
      continue;
    }
    std::string shortfall = MachineShortfall(job->demand, free);
    std::optional<std::vector<ReplicaPlacement>> placement;
    if (shortfall.empty()) {
      placement = PlaceGpus(job->replicas, devices, use);
      if (!placement) shortfall = "its GPU replicas do not fit on the free devices";
    }
    if (!shortfall.empty()) {
      decision.waiting[job->seq] = {"waiting for resources: " + shortfall, position};
      ++waiting[job->queue];
      blocked_queues[job->queue] = job->seq;
      continue;
    }
    free -= job->demand;
    decision.start.push_back({job->seq, std::move(*placement)});
  }
  return decision;
}

std::unique_ptr<SchedulingPolicy> CreateDefaultPolicy() {
  return std::make_unique<FairSharePolicy>();
}

}  // namespace dlp::server
