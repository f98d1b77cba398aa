// Memory that every rank on one host reads and writes in place, as
// MPI_Win_allocate_shared gives: each rank owns one block of the size it asked
// for (sizes may differ, and be 0) and maps every other rank's. Nothing is
// copied and nothing is synchronised here: ranks order their accesses with a
// barrier. The blocks are POSIX shm segments (shm_link.h's ShmSegment), their
// names unlinked once every rank mapped them, so a crash leaves nothing in
// /dev/shm. The mappings outlive the communicator that made them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "comm/comm_env.h"
#include "comm/shm_link.h"
#include "rendezvous/store.h"

namespace dlp::runtime {

class SharedWindow {
 public:
  // Every rank of `o` must call it with the same `key` (unique within the
  // communicator). A rank that cannot make its block (a full /dev/shm, too
  // many bytes) fails with its reason and the others with one that names it.
  // `store` may be null for a single rank.
  static absl::StatusOr<std::unique_ptr<SharedWindow>> Create(const CommOptions& o,
                                                              RendezvousStore* store,
                                                              const std::string& key, size_t bytes);

  int size() const { return static_cast<int>(blocks_.size()); }
  // Rank `rank`'s block (64-byte aligned) and its bytes.
  char* block(int rank) const;
  size_t bytes(int rank) const;

 private:
  explicit SharedWindow(std::vector<std::shared_ptr<ShmSegment>> blocks)
      : blocks_(std::move(blocks)) {}
  std::vector<std::shared_ptr<ShmSegment>> blocks_;
};

}  // namespace dlp::runtime
