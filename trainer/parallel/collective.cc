#include "parallel/collective.h"

#include "dlp/comm.h"
#include "parallel/comm_status.h"

namespace dlp::fmnist {

Collective::Collective(dlp_comm* comm)
    : comm_(comm),
      rank_(comm != nullptr ? dlp_comm_rank(comm) : 0),
      size_(comm != nullptr ? dlp_comm_size(comm) : 1) {}

absl::Status Collective::AllreduceSum(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_allreduce", dlp_allreduce(comm_, data, data, count, DLP_FLOAT32, DLP_SUM));
}

absl::Status Collective::ReduceScatterSum(float* data, size_t block) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_reduce_scatter",
                   dlp_reduce_scatter(comm_, data, data + static_cast<size_t>(rank_) * block, block,
                                      DLP_FLOAT32, DLP_SUM));
}

absl::Status Collective::Allgather(float* data, size_t block) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_allgather", dlp_allgather(comm_, data + static_cast<size_t>(rank_) * block,
                                                  data, block, DLP_FLOAT32));
}

absl::Status Collective::Broadcast(int64_t* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_INT64, 0));
}

absl::Status Collective::Barrier() {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_barrier", dlp_barrier(comm_));
}

absl::StatusOr<std::unique_ptr<SharedBlocks>> Collective::AllocateShared(size_t bytes) {
  if (comm_ == nullptr) return absl::FailedPreconditionError("one process shares no memory");
  dlp_shared* shared = nullptr;
  DLP_RETURN_IF_ERROR(CommStatus("dlp_shared_alloc", dlp_shared_alloc(comm_, bytes, &shared)));
  return std::make_unique<SharedBlocks>(shared);
}

SharedBlocks::~SharedBlocks() { dlp_shared_free(shared_); }

float* SharedBlocks::block(int rank) const {
  return static_cast<float*>(dlp_shared_block(shared_, rank, nullptr));
}

}  // namespace dlp::fmnist
