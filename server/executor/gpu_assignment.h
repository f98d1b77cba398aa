// A started job's GPU placement turned into the group file's per-replica
// devices (contract::Role::devices): each replica's exact
// CUDA_VISIBLE_DEVICES and, where an MPS control daemon runs, the limits of a
// fractional replica's share. Where none runs, replicas that share a device
// are kept apart by placement only (each gets its share of the device by
// scheduling, not enforcement).
#pragma once

#include <string>
#include <vector>

#include "contract/group.h"
#include "server/scheduler/snapshot.h"
#include "server/store/job_store.h"

namespace dlp::server {

// Whether an MPS control daemon serves this machine: a control socket in
// $CUDA_MPS_PIPE_DIRECTORY, else in /tmp/nvidia-mps (its default).
bool MpsControlDaemonRunning();

// How replicas on a shared device are kept apart, for dlp describe.
std::string GpuSharingDescription(bool mps);

// Sets every role's devices: a replica in `placement` gets its devices (by
// GpuDevice::id) and CUDA_DEVICE_ORDER=PCI_BUS_ID (so indices are NVML's);
// with `mps`, a replica holding a fraction of one device also gets
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (its share × 100) and, when the device's
// memory is known, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT "0=<MiB>M" (0: the one
// device it sees). A replica without GPUs gets CUDA_VISIBLE_DEVICES="".
void AssignDevices(const std::vector<ReplicaPlacement>& placement,
                   const std::vector<GpuDevice>& devices, bool mps, contract::Group& group);

// AssignDevices for a job being started (MPS detected now); sets
// record.job.gpu_sharing when one of its devices is shared. Returns what the
// Started event adds: " on GPUs worker-0 0, worker-1 MIG-..." ("" for none).
std::string AssignJobDevices(JobRecord& record, const std::vector<GpuDevice>& devices,
                             contract::Group& group);

}  // namespace dlp::server
