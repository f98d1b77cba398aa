// The trainer's view of the rank group: dlp/comm.h when started by dlp-run
// with WORLD_SIZE > 1, otherwise a group of one that needs no communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dlp/status.h"

struct dlp_comm;
struct dlp_shared;

namespace dlp::fmnist {

// Memory the ranks on one host read and write in place (dlp_shared_alloc):
// each rank's block, freed with this object.
class SharedBlocks {
 public:
  explicit SharedBlocks(dlp_shared* shared) : shared_(shared) {}
  ~SharedBlocks();
  SharedBlocks(const SharedBlocks&) = delete;
  SharedBlocks& operator=(const SharedBlocks&) = delete;
  float* block(int rank) const;

 private:
  dlp_shared* shared_;
};

class Collective {
 public:
  // Joins the ranks dlp-run started (WORLD_SIZE, or DLP_WORLD_SIZE, above 1);
  // a single process when neither is set. Errors name the failing call.
  static absl::StatusOr<std::unique_ptr<Collective>> FromEnvironment();
  ~Collective();

  int rank() const { return rank_; }
  int size() const { return size_; }

  // In place; every rank gets the element-wise sum.
  absl::Status AllreduceSum(float* data, size_t count);
  // `data` holds size() blocks of `block` floats: this rank's block, in place,
  // becomes the element-wise sum of every rank's.
  absl::Status ReduceScatterSum(float* data, size_t block);
  // The reverse: every rank's block of `data` reaches every rank.
  absl::Status Allgather(float* data, size_t block);
  // Rank 0's values reach every rank.
  absl::Status Broadcast(float* data, size_t count);
  absl::Status Broadcast(int64_t* data, size_t count);
  // Returns once every rank called it; what a rank wrote to shared blocks
  // before, every rank sees after.
  absl::Status Barrier();
  // This rank's block of `bytes` and every other rank's, shared in place.
  // FailedPrecondition when the ranks are not all on this host (or there is
  // one process, with nothing to share).
  absl::StatusOr<std::unique_ptr<SharedBlocks>> AllocateShared(size_t bytes);

 private:
  Collective(dlp_comm* comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  dlp_comm* comm_;
  int rank_, size_;
};

}  // namespace dlp::fmnist
