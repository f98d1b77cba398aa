// The engine's view of the ranks: the program's dlp_comm (dlp/comm.h), which
// it joined and owns, or a group of one process without a communicator. What
// the engine's own parts need of it: shared memory, the block collectives of
// the sharded optimizer, the evaluation's sum, broadcasts and barriers.
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
  // `comm` stays the caller's and outlives this object; null: one process.
  explicit Collective(dlp_comm* comm);

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
  absl::Status Broadcast(int64_t* data, size_t count);
  // Returns once every rank called it; what a rank wrote to shared blocks
  // before, every rank sees after.
  absl::Status Barrier();
  // This rank's block of `bytes` and every other rank's, shared in place.
  // FailedPrecondition when the ranks are not all on this host (or there is
  // one process, with nothing to share).
  absl::StatusOr<std::unique_ptr<SharedBlocks>> AllocateShared(size_t bytes);

 private:
  dlp_comm* comm_;
  int rank_, size_;
};

}  // namespace dlp::fmnist
