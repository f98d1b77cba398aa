// Which GPUs a job's processes can open, enforced by the kernel on the job's
// cgroup rather than left to CUDA_VISIBLE_DEVICES (which a job may unset):
// only the /dev/nvidiaN of the devices placed on the job. nvidiactl,
// nvidia-uvm, nvidia-modeset and every other device stay as they are, so
// CUDA works on the devices given and RDMA, FUSE and the like are untouched.
//
// cgroup v1: a rule "c 195:N rwm" in devices.deny for every other N. cgroup
// v2: a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the cgroup, as runc
// and systemd do; the kernel drops it with the cgroup.
#pragma once

#include <linux/bpf.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// The minors (N of /dev/nvidiaN) of the devices in `placement`, sorted and
// unique: GpuDevice::minor of each, or N for a device known only as "N"
// (`dlpd --gpus N`).
std::vector<int> PlacedGpuMinors(const std::vector<ReplicaPlacement>& placement,
                                 const std::vector<GpuDevice>& devices);

// "GPU devices /dev/nvidia0, /dev/nvidia2 only", "no GPU device", for the
// job's Limits event.
std::string DescribeGpuNodes(const std::vector<int>& allowed_minors);

// cgroup v1: the lines to write to devices.deny, one a write.
std::vector<std::string> GpuDenyRules(const std::vector<int>& allowed_minors);

// cgroup v2: the device program, which allows every access but to a GPU node
// not in `allowed_minors`.
std::vector<bpf_insn> GpuDeviceProgram(const std::vector<int>& allowed_minors);

// Loads GpuDeviceProgram and attaches it to the cgroup v2 folder `cgroup`
// (beside programs already there: the kernel asks each). Unavailable, saying
// why, when the kernel refuses (no CAP_BPF/CAP_SYS_ADMIN, no BPF).
absl::Status AttachGpuDeviceProgram(const std::string& cgroup,
                                    const std::vector<int>& allowed_minors);

}  // namespace dlp::server
