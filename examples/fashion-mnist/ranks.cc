#include "ranks.h"

#include "dlp/comm.h"
#include "parallel/comm_status.h"
#include "parallel/launch_env.h"

namespace dlp::fmnist {

absl::StatusOr<std::unique_ptr<Ranks>> Ranks::Join() {
  DLP_ASSIGN_OR_RETURN(const int world, WorldSizeFromEnv());
  if (world == 1) return std::unique_ptr<Ranks>(new Ranks(nullptr, 0, 1, LocalWorldSizeFromEnv()));
  dlp_comm* comm = nullptr;
  DLP_RETURN_IF_ERROR(CommStatus("dlp_comm_init_from_env", dlp_comm_init_from_env(&comm)));
  return std::unique_ptr<Ranks>(
      new Ranks(comm, dlp_comm_rank(comm), dlp_comm_size(comm), LocalWorldSizeFromEnv()));
}

Ranks::~Ranks() {
  if (comm_ != nullptr) dlp_comm_destroy(comm_);
}

absl::Status Ranks::AllreduceSum(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_allreduce", dlp_allreduce(comm_, data, data, count, DLP_FLOAT32, DLP_SUM));
}

absl::Status Ranks::Broadcast(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_FLOAT32, 0));
}

absl::Status Ranks::Broadcast(int64_t* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommStatus("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_INT64, 0));
}

}  // namespace dlp::fmnist
