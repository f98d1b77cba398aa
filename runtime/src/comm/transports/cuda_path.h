// GPU paths, compiled only in CUDA builds (files ending _cuda.cc and
// _nccl.cc; see runtime/CMakeLists.txt). transport_select.cc picks one.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "comm/core/comm_env.h"
#include "comm/transports/device_path.h"
#include "comm/transports/ring_links.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

// Visible CUDA devices (0 without a driver or device).
int CudaDeviceCount();
// The UUID of the current device, to find ranks that share a GPU.
absl::StatusOr<std::string> CurrentCudaDeviceUuid();

// Copies device buffers to pinned host memory, runs the host ring, copies back.
std::unique_ptr<DevicePath> MakeStagingPath(const RingContext* host_ring);

// A NCCL communicator over all ranks (one GPU per rank); rank 0's unique id
// travels through `store` (null for a single rank).
absl::StatusOr<std::unique_ptr<DevicePath>> MakeNcclPath(const CommOptions& options,
                                                         RendezvousStore* store);

}  // namespace dlp::runtime
