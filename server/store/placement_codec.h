// A started job's GPU placement as the store keeps it (jobs.placement, schema
// version 7; the one column since version 16): JSON of each replica's device
// shares (GpuShare, as on the wire) and how shared devices are kept apart, e.g.
//   {"sharing":"by placement only (no MPS control daemon)",
//    "replicas":[{"replica":"worker-0","gpus":[{"device":"0","millis":500}]}]}
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/scheduler/snapshot.h"
#include "server/store/job_store.h"

namespace dlp::server {

// "" when the job holds no GPU.
std::string PlacementToJson(const std::vector<ReplicaPlacement>& placement,
                            const std::string& sharing);
// The inverse; "" reads as no placement. InvalidArgument on a malformed text.
absl::Status PlacementFromJson(const std::string& text, std::vector<ReplicaPlacement>& placement,
                               std::string& sharing);

// The whole column: the placement as above, and for an elastic job its size,
// resizes and any resize under way (JobRecord), e.g. ,"elastic":{"size":2,
// "resizes":1,"resizeTo":4,"resizeReason":"Resized 2→4 (capacity free)",
// "resizePlacement":[...],"reforming":false,"resizedUs":...}. "" for a rigid
// job without GPUs. A malformed text reads as none (the job is then rigid).
std::string StoredPlacement(const JobRecord& record);
void ReadStoredPlacement(const std::string& text, JobRecord& record);

// What CUDA_VISIBLE_DEVICES a replica's shares give it: "0,1", "MIG-...".
std::string VisibleDevices(const ReplicaPlacement& placement);
// The record's placement shown on its public job: each replica's `gpus`
// (its shares, none when it holds no GPU) and job.gpu_sharing (kept only
// when a device is shared).
void ShowPlacement(JobRecord& record);

}  // namespace dlp::server
