#include "server/scheduler/elastic.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {
namespace {

// The index of `replica` in the elastic role ("worker-3" -> 3); -1: another role.
int IndexIn(const ElasticRole& elastic, const std::string& replica) {
  const std::string prefix = elastic.role + "-";
  int index = -1;
  if (!absl::StartsWith(replica, prefix) ||
      !absl::SimpleAtoi(replica.substr(prefix.size()), &index)) {
    return -1;
  }
  return index;
}

ResourceVector Times(const ResourceVector& one, int n) {
  ResourceVector out;
  for (int i = 0; i < n; ++i) out += one;
  return out;
}

}  // namespace

ElasticRole ElasticRoleOf(const JobSpec& spec) {
  ElasticRole elastic;
  for (const ReplicaSpec& r : spec.replicas) {
    if (!IsElastic(r)) continue;
    elastic.role = r.role;
    elastic.min = MinCountOf(r);
    elastic.max = r.count;
    elastic.per_replica.cpu_millis = r.resources.cpu_millis;
    elastic.per_replica.memory_bytes = r.resources.memory_bytes;
    elastic.per_replica.gpu_millis = r.resources.gpu_millis;
    if (!r.resources.gpu_type.empty() && r.resources.gpu_millis > 0) {
      elastic.per_replica.gpu_flavours[FlavourOf(r.resources.gpu_type)] = r.resources.gpu_millis;
    }
    elastic.gpu_millis = r.resources.gpu_millis;
    elastic.gpu_type = r.resources.gpu_type;
  }
  return elastic;
}

JobSpec SpecAtSize(JobSpec spec, int size) {
  if (size <= 0) return spec;
  for (ReplicaSpec& r : spec.replicas) {
    if (IsElastic(r)) r.count = std::clamp(size, MinCountOf(r), r.count);
  }
  return spec;
}

std::string ElasticReplicaName(const ElasticRole& elastic, int index) {
  return absl::StrCat(elastic.role, "-", index);
}

ResourceVector DemandAtSize(const ElasticRole& elastic, ResourceVector demand, int from, int to) {
  if (to < from) demand -= Times(elastic.per_replica, from - to);
  if (to > from) demand += Times(elastic.per_replica, to - from);
  return demand;
}

std::vector<ReplicaGpuDemand> GrownGpuDemands(const ElasticRole& elastic, int from, int to) {
  std::vector<ReplicaGpuDemand> out;
  if (elastic.gpu_millis <= 0) return out;
  for (int i = from; i < to; ++i) {
    out.push_back({ElasticReplicaName(elastic, i), elastic.gpu_millis, elastic.gpu_type});
  }
  return out;
}

ResourceVector ReplicasDemand(const ElasticRole& elastic, int n) {
  return Times(elastic.per_replica, n);
}

void AddGrowths(const std::vector<RunningJob>& running,
                const std::vector<ResizeDecision>& resizes, ResourceVector& used,
                DeviceUse& devices) {
  for (const ResizeDecision& r : resizes) {
    if (r.to <= r.from) continue;
    for (const RunningJob& job : running) {
      if (job.seq != r.seq) continue;
      used += ReplicasDemand(job.elastic, r.to - r.from);
      for (const ReplicaPlacement& p : PlacementDropped(job.elastic, r.placement, r.from)) {
        for (const GpuShare& share : p.gpus) devices[share.device] += share.millis;
      }
    }
  }
}

std::vector<ReplicaPlacement> PlacementDropped(const ElasticRole& elastic,
                                               std::vector<ReplicaPlacement> placement, int size) {
  std::erase_if(placement,
                [&](const ReplicaPlacement& p) { return IndexIn(elastic, p.replica) < size; });
  return placement;
}

std::vector<ReplicaPlacement> PlacementAtSize(const ElasticRole& elastic,
                                              std::vector<ReplicaPlacement> placement, int size) {
  std::erase_if(placement,
                [&](const ReplicaPlacement& p) { return IndexIn(elastic, p.replica) >= size; });
  return placement;
}

PendingJob AtSize(const PendingJob& job, int size) {
  PendingJob sized = job;
  if (!job.elastic.elastic() || size >= job.elastic.max) return sized;
  sized.demand = DemandAtSize(job.elastic, job.demand, job.elastic.max, size);
  std::erase_if(sized.replicas, [&](const ReplicaGpuDemand& r) {
    return IndexIn(job.elastic, r.replica) >= size;
  });
  sized.size = size;
  return sized;
}

bool MayGrow(const Snapshot& snapshot) {
  for (const RunningJob& job : snapshot.running) {
    if (job.elastic.elastic() && job.size < job.elastic.max && job.resizing_to == 0 &&
        !job.stopping && snapshot.now - job.resized >= snapshot.resize_interval) {
      return true;
    }
  }
  return false;
}

std::string GrowReason(int from, int to) {
  return absl::StrCat("Resized ", from, "\u2192", to, " (capacity free)");
}

std::string ShrinkReason(int from, int to, int64_t for_job, int priority) {
  return absl::StrCat("Resized ", from, "\u2192", to, " (for job ", for_job, ", priority ",
                      priority, ")");
}

}  // namespace dlp::server
