#include "ranks.h"

#include <algorithm>
#include <cstdlib>

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

int LocalSizeFromEnv() {
  int local = 1;
  const char* value = std::getenv("LOCAL_WORLD_SIZE");
  if (value == nullptr || !absl::SimpleAtoi(value, &local)) return 1;
  return std::max(local, 1);
}

// Every dlp_* call returns 0 or a status code; dlp_last_error() says why.
absl::Status CommError(const char* call, int rc) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, ": ", dlp_last_error()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Ranks>> Ranks::Join() {
  DLP_ASSIGN_OR_RETURN(const int world, WorldSizeFromEnv());
  if (world == 1) return std::unique_ptr<Ranks>(new Ranks(nullptr, 0, 1, LocalSizeFromEnv()));
  dlp_comm* comm = nullptr;
  DLP_RETURN_IF_ERROR(CommError("dlp_comm_init_from_env", dlp_comm_init_from_env(&comm)));
  return std::unique_ptr<Ranks>(
      new Ranks(comm, dlp_comm_rank(comm), dlp_comm_size(comm), LocalSizeFromEnv()));
}

Ranks::~Ranks() {
  if (comm_ != nullptr) dlp_comm_destroy(comm_);
}

absl::Status Ranks::AllreduceSum(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_allreduce", dlp_allreduce(comm_, data, data, count, DLP_FLOAT32, DLP_SUM));
}

absl::Status Ranks::Broadcast(float* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_FLOAT32, 0));
}

absl::Status Ranks::Broadcast(int64_t* data, size_t count) {
  if (comm_ == nullptr) return absl::OkStatus();
  return CommError("dlp_broadcast", dlp_broadcast(comm_, data, count, DLP_INT64, 0));
}

}  // namespace dlp::fmnist
