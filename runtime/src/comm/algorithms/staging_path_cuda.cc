// Host staging for GPU buffers: device → pinned host → host ring → device.
// Used when ranks share a GPU (NCCL allows one rank per GPU) or NCCL is absent.
#include <cuda_runtime.h>

#include <cstring>

#include "comm/algorithms/ring.h"
#include "comm/algorithms/staging_path.h"
#include "comm/core/dtype.h"
#include "comm/transports/cuda_check.h"

namespace dlp::runtime {
namespace {

class StagingPath : public DevicePath {
 public:
  explicit StagingPath(const RingContext* ring) : ring_(ring) {}
  ~StagingPath() override {
    if (host_ != nullptr) cudaFreeHost(host_);
  }
  const char* name() const override { return "staging"; }

  bool IsDevice(const void* p) const override { return IsDevicePointer(p); }

  absl::Status Allreduce(const void* send, void* recv, size_t count, dlp_dtype t,
                         dlp_op op) override {
    size_t bytes = count * DTypeSize(t);
    if (absl::Status r = Reserve(bytes); !r.ok()) return r;
    DLP_CUDA_CHECK(cudaMemcpy(host_, send, bytes, cudaMemcpyDefault));
    absl::Status s = RingAllreduce(*ring_, host_, host_, count, t, op);
    if (!s.ok()) return s;
    DLP_CUDA_CHECK(cudaMemcpy(recv, host_, bytes, cudaMemcpyDefault));
    return absl::OkStatus();
  }

  absl::Status Broadcast(void* buf, size_t count, dlp_dtype t, int root) override {
    size_t bytes = count * DTypeSize(t);
    if (absl::Status r = Reserve(bytes); !r.ok()) return r;
    if (ring_->rank == root) DLP_CUDA_CHECK(cudaMemcpy(host_, buf, bytes, cudaMemcpyDefault));
    absl::Status s = RingBroadcast(*ring_, host_, count, t, root);
    if (!s.ok()) return s;
    DLP_CUDA_CHECK(cudaMemcpy(buf, host_, bytes, cudaMemcpyDefault));
    return absl::OkStatus();
  }

  absl::Status Allgather(const void* send, void* recv, size_t count_per_rank,
                         dlp_dtype t) override {
    size_t block = count_per_rank * DTypeSize(t);
    size_t bytes = block * static_cast<size_t>(ring_->size);
    if (absl::Status r = Reserve(bytes); !r.ok()) return r;
    char* mine = static_cast<char*>(host_) + block * static_cast<size_t>(ring_->rank);
    DLP_CUDA_CHECK(cudaMemcpy(mine, send, block, cudaMemcpyDefault));
    absl::Status s = RingAllgather(*ring_, mine, host_, count_per_rank, t);
    if (!s.ok()) return s;
    DLP_CUDA_CHECK(cudaMemcpy(recv, host_, bytes, cudaMemcpyDefault));
    return absl::OkStatus();
  }

  absl::Status ReduceScatter(const void* send, void* recv, size_t count_per_rank, dlp_dtype t,
                             dlp_op op) override {
    size_t block = count_per_rank * DTypeSize(t);
    size_t bytes = block * static_cast<size_t>(ring_->size);
    if (absl::Status r = Reserve(bytes); !r.ok()) return r;
    DLP_CUDA_CHECK(cudaMemcpy(host_, send, bytes, cudaMemcpyDefault));
    // The staged copy is this path's own: the partial sums may overwrite it.
    char* mine = static_cast<char*>(host_) + block * static_cast<size_t>(ring_->rank);
    absl::Status s =
        RingReduceScatter(*ring_, host_, mine, count_per_rank, count_per_rank, t, op, host_);
    if (!s.ok()) return s;
    DLP_CUDA_CHECK(cudaMemcpy(recv, mine, block, cudaMemcpyDefault));
    return absl::OkStatus();
  }

 private:
  static bool IsDevicePointer(const void* p) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error of an unknown pointer
      return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
  }

  absl::Status Reserve(size_t bytes) {
    if (bytes <= capacity_) return absl::OkStatus();
    if (host_ != nullptr) cudaFreeHost(host_);
    host_ = nullptr;
    capacity_ = 0;
    DLP_CUDA_CHECK(cudaMallocHost(&host_, bytes));
    capacity_ = bytes;
    return absl::OkStatus();
  }

  const RingContext* ring_;
  void* host_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<DevicePath> MakeStagingPath(const RingContext* host_ring) {
  return std::make_unique<StagingPath>(host_ring);
}

}  // namespace dlp::runtime
