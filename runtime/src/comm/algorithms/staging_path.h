// The GPU path through host memory (CUDA builds only, staging_path_cuda.cc):
// device buffers are copied to pinned host memory, the host ring runs over
// them (ring.h), and the result is copied back. transport_select.cc picks it
// where ranks share a GPU or NCCL is absent.
#pragma once

#include <memory>

#include "comm/transports/device_path.h"
#include "comm/transports/ring_links.h"

namespace dlp::runtime {

std::unique_ptr<DevicePath> MakeStagingPath(const RingContext* host_ring);

}  // namespace dlp::runtime
