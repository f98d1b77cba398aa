// GPU transports, compiled only in CUDA builds (files ending _cuda.cc and
// _nccl.cc; see runtime/CMakeLists.txt). transport_select.cc picks
// one (or the staging path, algorithms/staging_path.h).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "comm/core/comm_env.h"
#include "comm/transports/device_path.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

// Visible CUDA devices (0 without a driver or device).
int CudaDeviceCount();
// The UUID of the current device, to find ranks that share a GPU.
absl::StatusOr<std::string> CurrentCudaDeviceUuid();

// A NCCL communicator over all ranks (one GPU per rank); rank 0's unique id
// travels through `store` (null for a single rank).
absl::StatusOr<std::unique_ptr<DevicePath>> MakeNcclPath(const CommOptions& options,
                                                         RendezvousStore* store);

}  // namespace dlp::runtime
