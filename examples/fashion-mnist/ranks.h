// The ranks this process trains with, through dlp/comm.h: dlp-run starts each
// rank with RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and its rendezvous store in the
// environment, and dlp_comm_init_from_env joins them. Run alone (no
// WORLD_SIZE), the process is a group of one that needs no communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dlp/status.h"

struct dlp_comm;

namespace dlp::fmnist {

class Ranks {
 public:
  // Errors name the failing call, or the bad WORLD_SIZE.
  static absl::StatusOr<std::unique_ptr<Ranks>> Join();
  ~Ranks();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The ranks on this host (LOCAL_WORLD_SIZE); 1 when not under a launcher.
  int local_size() const { return local_size_; }
  // The communicator, for the engine's own collectives; null when alone.
  dlp_comm* comm() const { return comm_; }

  // In place; every rank gets the element-wise sum (dlp_allreduce).
  absl::Status AllreduceSum(float* data, size_t count);
  // Rank 0's values reach every rank (dlp_broadcast).
  absl::Status Broadcast(float* data, size_t count);
  absl::Status Broadcast(int64_t* data, size_t count);

 private:
  Ranks(dlp_comm* comm, int rank, int size, int local_size)
      : comm_(comm), rank_(rank), size_(size), local_size_(local_size) {}
  dlp_comm* comm_;
  int rank_, size_, local_size_;
};

}  // namespace dlp::fmnist
