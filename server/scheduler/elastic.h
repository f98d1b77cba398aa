// Helpers for elastic jobs (elastic_role.h): their demand, GPU replicas and
// placement at a size, and the words of their resize events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlp/job.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// `spec` with its elastic role at `size` replicas (0, or a rigid job: as is).
JobSpec SpecAtSize(JobSpec spec, int size);

// The elastic role of a spec; empty role when the job is rigid.
ElasticRole ElasticRoleOf(const JobSpec& spec);

// "worker-3".
std::string ElasticReplicaName(const ElasticRole& elastic, int index);
// `demand` (the job at `from` replicas of its elastic role) at `to` replicas.
ResourceVector DemandAtSize(const ElasticRole& elastic, ResourceVector demand, int from, int to);
// The GPU demands of replicas [from, to) of the elastic role.
std::vector<ReplicaGpuDemand> GrownGpuDemands(const ElasticRole& elastic, int from, int to);
// What `n` replicas of the elastic role hold.
ResourceVector ReplicasDemand(const ElasticRole& elastic, int n);
// The placements of the elastic role's replicas from index `size` on.
std::vector<ReplicaPlacement> PlacementDropped(const ElasticRole& elastic,
                                               std::vector<ReplicaPlacement> placement, int size);
// `placement` without the elastic role's replicas from index `size` on.
std::vector<ReplicaPlacement> PlacementAtSize(const ElasticRole& elastic,
                                              std::vector<ReplicaPlacement> placement, int size);
// Adds to `used` and `devices` what the grows among `resizes` hold at once
// (a shrink frees its replicas only once they have stopped).
void AddGrowths(const std::vector<RunningJob>& running,
                const std::vector<ResizeDecision>& resizes, ResourceVector& used,
                DeviceUse& devices);
// `job` (as submitted, at max) started at `size`: demand and GPU replicas of
// the replicas it runs only.
PendingJob AtSize(const PendingJob& job, int size);

// Whether a running elastic job of `snapshot` may grow now (the policy is
// worth asking with nothing waiting).
bool MayGrow(const Snapshot& snapshot);

// The event texts.
std::string GrowReason(int from, int to);
std::string ShrinkReason(int from, int to, int64_t for_job, int priority);

}  // namespace dlp::server
