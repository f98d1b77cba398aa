// NCCL for GPU buffers when every rank has a GPU of its own (or there is one
// rank). Collectives run on a private stream; the wait for completion has the
// communicator's deadline and aborts the NCCL communicator when it passes,
// so a dead peer turns into an error rather than a hang.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "comm/transports/cuda_check.h"
#include "comm/transports/cuda_path.h"
#include "dlp/status.h"

// NCCL calls go through this one macro: NCCL's own message, as a Status.
#define DLP_NCCL_CHECK(call)                                                          \
  do {                                                                                \
    ncclResult_t dlp_nccl_res_ = (call);                                              \
    if (dlp_nccl_res_ != ncclSuccess) {                                               \
      return ::absl::InternalError(                                                   \
          ::absl::StrCat(#call, ": ", ncclGetErrorString(dlp_nccl_res_)));            \
    }                                                                                 \
  } while (0)

namespace dlp::runtime {
namespace {

ncclDataType_t ToNccl(dlp_dtype t) {
  switch (t) {
    case DLP_FLOAT32: return ncclFloat32;
    case DLP_FLOAT64: return ncclFloat64;
    case DLP_FLOAT16: return ncclFloat16;
    case DLP_BFLOAT16: return ncclBfloat16;
    case DLP_INT32: return ncclInt32;
    case DLP_INT64: return ncclInt64;
  }
  return ncclFloat32;
}

ncclRedOp_t ToNccl(dlp_op op) {
  switch (op) {
    case DLP_SUM: return ncclSum;
    case DLP_AVG: return ncclAvg;
    case DLP_MIN: return ncclMin;
    case DLP_MAX: return ncclMax;
  }
  return ncclSum;
}

class NcclPath : public DevicePath {
 public:
  NcclPath(ncclComm_t comm, cudaStream_t stream, absl::Duration timeout)
      : comm_(comm), stream_(stream), timeout_(timeout) {}
  ~NcclPath() override {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  const char* name() const override { return "nccl"; }

  bool IsDevice(const void* p) const override {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
  }

  absl::Status Allreduce(const void* send, void* recv, size_t count, dlp_dtype t,
                         dlp_op op) override {
    DLP_NCCL_CHECK(ncclAllReduce(send, recv, count, ToNccl(t), ToNccl(op), comm_, stream_));
    return Finish("allreduce");
  }
  absl::Status Broadcast(void* buf, size_t count, dlp_dtype t, int root) override {
    DLP_NCCL_CHECK(ncclBroadcast(buf, buf, count, ToNccl(t), root, comm_, stream_));
    return Finish("broadcast");
  }
  absl::Status Allgather(const void* send, void* recv, size_t count_per_rank,
                         dlp_dtype t) override {
    DLP_NCCL_CHECK(ncclAllGather(send, recv, count_per_rank, ToNccl(t), comm_, stream_));
    return Finish("allgather");
  }
  absl::Status ReduceScatter(const void* send, void* recv, size_t count_per_rank, dlp_dtype t,
                             dlp_op op) override {
    DLP_NCCL_CHECK(
        ncclReduceScatter(send, recv, count_per_rank, ToNccl(t), ToNccl(op), comm_, stream_));
    return Finish("reduce-scatter");
  }

 private:
  // Waits for the stream with a deadline, watching NCCL's asynchronous errors.
  absl::Status Finish(const char* what) {
    absl::Time deadline = absl::Now() + timeout_;
    while (true) {
      cudaError_t q = cudaStreamQuery(stream_);
      if (q == cudaSuccess) return absl::OkStatus();
      if (q != cudaErrorNotReady) {
        return absl::InternalError(absl::StrCat(what, ": ", cudaGetErrorString(q)));
      }
      ncclResult_t async = ncclSuccess;
      DLP_NCCL_CHECK(ncclCommGetAsyncError(comm_, &async));
      if (async != ncclSuccess || absl::Now() > deadline) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        return absl::UnavailableError(absl::StrCat(
            what, " (nccl): ", async != ncclSuccess ? ncclGetErrorString(async) : "no progress for ",
            async != ncclSuccess ? "" : absl::FormatDuration(timeout_)));
      }
      std::this_thread::yield();
    }
  }

  ncclComm_t comm_;
  cudaStream_t stream_;
  absl::Duration timeout_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DevicePath>> MakeNcclPath(const CommOptions& o,
                                                         RendezvousStore* store) {
  ncclUniqueId id;
  if (o.rank == 0) DLP_NCCL_CHECK(ncclGetUniqueId(&id));
  if (o.size > 1) {
    std::string key = absl::StrCat(o.key_prefix, "/nccl_id");
    if (o.rank == 0) {
      DLP_RETURN_IF_ERROR(store->Set(key, std::string(id.internal, sizeof(id.internal))));
    } else {
      DLP_ASSIGN_OR_RETURN(std::string bytes, store->Get(key, o.timeout));
      if (bytes.size() != sizeof(id.internal)) return absl::InternalError("bad NCCL id in store");
      std::memcpy(id.internal, bytes.data(), bytes.size());
    }
  }
  cudaStream_t stream = nullptr;
  DLP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ncclComm_t comm = nullptr;
  ncclResult_t r = ncclCommInitRank(&comm, o.size, id, o.rank);
  if (r != ncclSuccess) {
    cudaStreamDestroy(stream);
    return absl::InternalError(absl::StrCat("ncclCommInitRank: ", ncclGetErrorString(r)));
  }
  return std::unique_ptr<DevicePath>(new NcclPath(comm, stream, o.timeout));
}

}  // namespace dlp::runtime
