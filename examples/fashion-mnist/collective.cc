#include "collective.h"

#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/comm.h"

namespace dlp::fmnist {
namespace {

absl::StatusOr<int> WorldSizeFromEnv() {
  for (const char* name : {"WORLD_SIZE", "DLP_WORLD_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    int size = 0;
    if (!absl::SimpleAtoi(value, &size) || size < 1) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=\"", value, "\" is not a rank count"));
    }
    return size;
  }
  return 1;
}

absl::Status CommError(const char* call, int rc) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, ": ", dlp_last_error()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Collective>> Collective::FromEnvironment() {
  DLP_ASSIGN_OR_RETURN(const int world, WorldSizeFromEnv());
  if (world == 1) return std::unique_ptr<Collective>(new Collective(nullptr, 0, 1));
  dlp_comm* comm = nullptr;
  DLP_RETURN_IF_ERROR(CommError("dlp_comm_init_from_env", dlp_comm_init_from_env(&comm)));
  return std::unique_ptr<Collective>(
      new Collective(comm, dlp_comm_rank(comm), dlp_comm_size(comm)));
}

Collective::~Collective() {
  if (comm_ != nullptr) dlp_comm_destroy(comm_);
}

absl::Status Collective::AllreduceSum(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_allreduce", dlp_allreduce(comm_, data, data, count, DLP_FLOAT32, DLP_SUM));
}

absl::Status Collective::ReduceScatterSum(float* data, size_t block) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_reduce_scatter",
                   dlp_reduce_scatter(comm_, data, data + static_cast<size_t>(rank_) * block, block,
                                      DLP_FLOAT32, DLP_SUM));
}

absl::Status Collective::Allgather(float* data, size_t block) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_allgather", dlp_allgather(comm_, data + static_cast<size_t>(rank_) * block,
                                                  data, block, DLP_FLOAT32));
}

absl::Status Collective::Broadcast(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_FLOAT32, 0));
}

absl::Status Collective::Broadcast(int64_t* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_INT64, 0));
}

absl::Status Collective::Barrier() {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_barrier", dlp_barrier(comm_));
}

absl::StatusOr<std::unique_ptr<SharedBlocks>> Collective::AllocateShared(size_t bytes) {
  if (comm_ == nullptr) return absl::FailedPreconditionError("one process shares no memory");
  dlp_shared* shared = nullptr;
  DLP_RETURN_IF_ERROR(CommError("dlp_shared_alloc", dlp_shared_alloc(comm_, bytes, &shared)));
  return std::make_unique<SharedBlocks>(shared);
}

SharedBlocks::~SharedBlocks() { dlp_shared_free(shared_); }

float* SharedBlocks::block(int rank) const {
  return static_cast<float*>(dlp_shared_block(shared_, rank, nullptr));
}

}  // namespace dlp::fmnist
