// Collectives on GPU buffers. Built only with CUDA (see transport_select.cc):
// NCCL when every rank has a GPU of its own, otherwise host staging (copy to
// host, run the host ring, copy back), which also lets several ranks share one
// GPU.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "dlp/comm.h"

namespace dlp::runtime {

class DevicePath {
 public:
  virtual ~DevicePath() = default;
  // Whether `p` is device memory (cudaPointerGetAttributes).
  virtual bool IsDevice(const void* p) const = 0;
  virtual absl::Status Allreduce(const void* send, void* recv, size_t count, dlp_dtype t,
                                 dlp_op op) = 0;
  virtual absl::Status Broadcast(void* buf, size_t count, dlp_dtype t, int root) = 0;
  virtual absl::Status Allgather(const void* send, void* recv, size_t count_per_rank,
                                 dlp_dtype t) = 0;
  virtual absl::Status ReduceScatter(const void* send, void* recv, size_t count_per_rank,
                                     dlp_dtype t, dlp_op op) = 0;
  virtual const char* name() const = 0;
};

}  // namespace dlp::runtime
