// Memory that every rank on one host reads and writes in place, as
// MPI_Win_allocate_shared gives: each rank owns one block of the size it asked
// for (sizes may differ, and be 0) and maps every other rank's. Nothing is
// copied and nothing is synchronised here: ranks order their accesses with a
// barrier. The blocks are POSIX shm segments (shm_link.h's ShmSegment), their
// names unlinked once every rank mapped them, so a crash leaves nothing in
// /dev/shm. The mappings last as long as the window object, which the
// communicator that made it holds too (WindowRegistry).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "comm/core/comm_env.h"
#include "comm/transports/shm_link.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

class SharedWindow {
 public:
  // Every rank of `o` must call it with the same `key` (unique within the
  // communicator). A rank that cannot make its block (a full /dev/shm, too
  // many bytes) fails with its reason and the others with one that names it.
  // `store` may be null for a single rank.
  static absl::StatusOr<std::shared_ptr<SharedWindow>> Create(const CommOptions& o,
                                                              RendezvousStore* store,
                                                              const std::string& key, size_t bytes);

  int size() const { return static_cast<int>(blocks_.size()); }
  // Rank `rank`'s block (64-byte aligned) and its bytes.
  char* block(int rank) const;
  size_t bytes(int rank) const;
  // Whether `bytes` from `p` lie in rank `rank`'s block.
  bool Holds(int rank, const void* p, size_t bytes) const;

 private:
  explicit SharedWindow(std::vector<std::shared_ptr<ShmSegment>> blocks)
      : blocks_(std::move(blocks)) {}
  std::vector<std::shared_ptr<ShmSegment>> blocks_;
};

// The windows of one communicator, by the order they were made in (the same
// on every rank), so that a collective can find a peer's buffer in shared
// memory from where it lies in the peer's block. It keeps the windows mapped
// until the communicator goes.
class WindowRegistry {
 public:
  int Add(std::shared_ptr<const SharedWindow> window);
  int size() const { return static_cast<int>(windows_.size()); }

  struct Place {
    int window = -1;
    uint64_t offset = 0;
  };
  // Where `bytes` from `p` lie in this rank's block of a window; window -1 if none.
  Place Find(int rank, const void* p, size_t bytes) const;
  // Rank `rank`'s address of `place`, or null unless `bytes` from it lie in its block.
  char* Resolve(int rank, Place place, size_t bytes) const;

 private:
  std::vector<std::shared_ptr<const SharedWindow>> windows_;
};

}  // namespace dlp::runtime
