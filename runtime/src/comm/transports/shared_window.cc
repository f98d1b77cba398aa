// The rendezvous keys, under the communicator's prefix:
//   window/<key>/<r>          "<bytes> <segment name>" of rank r's block, or
//                             "error <reason>" when rank r could not make it
//   window-mapped/<key>/<r>   rank r has mapped every block
#include "comm/transports/shared_window.h"

#include <sys/types.h>

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

// Leaves room for the segment's header within what ftruncate takes.
constexpr size_t kMaxBytes = static_cast<size_t>(std::numeric_limits<off_t>::max()) >> 1;

absl::StatusOr<std::shared_ptr<ShmSegment>> MakeOwnBlock(int rank, size_t bytes) {
  if (bytes > kMaxBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        bytes, " bytes is more shared memory than a block can hold (", kMaxBytes, " at most)"));
  }
  return ShmSegment::Create(NewShmName(rank), rank, bytes);
}

}  // namespace

absl::StatusOr<std::shared_ptr<SharedWindow>> SharedWindow::Create(const CommOptions& o,
                                                                   RendezvousStore* store,
                                                                   const std::string& key,
                                                                   size_t bytes) {
  absl::StatusOr<std::shared_ptr<ShmSegment>> own = MakeOwnBlock(o.rank, bytes);
  std::vector<std::shared_ptr<ShmSegment>> blocks(static_cast<size_t>(o.size));
  if (o.size == 1) {
    if (!own.ok()) return own.status();
    (*own)->Unlink();
    blocks[0] = *own;
    return std::shared_ptr<SharedWindow>(new SharedWindow(std::move(blocks)));
  }
  const std::string prefix = absl::StrCat(o.key_prefix, "/window/", key, "/");
  const std::string mapped_prefix = absl::StrCat(o.key_prefix, "/window-mapped/", key, "/");
  DLP_RETURN_IF_ERROR(store->Set(absl::StrCat(prefix, o.rank),
                                 own.ok() ? absl::StrCat(bytes, " ", (*own)->name())
                                          : absl::StrCat("error ", own.status().message())));
  if (!own.ok()) return own.status();
  blocks[static_cast<size_t>(o.rank)] = *own;
  std::vector<std::string> mapped;
  for (int r = 0; r < o.size; ++r) {
    mapped.push_back(absl::StrCat(mapped_prefix, r));
    if (r == o.rank) continue;
    DLP_ASSIGN_OR_RETURN(const std::string value, store->Get(absl::StrCat(prefix, r), o.timeout));
    const std::pair<std::string, std::string> parts =
        absl::StrSplit(value, absl::MaxSplits(' ', 1));
    if (parts.first == "error") {
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", r, " could not make its shared block: ", parts.second));
    }
    size_t peer_bytes = 0;
    if (!absl::SimpleAtoi(parts.first, &peer_bytes)) {
      return absl::InternalError(
          absl::StrCat("rank ", r, " published \"", value, "\" for its block"));
    }
    DLP_ASSIGN_OR_RETURN(blocks[static_cast<size_t>(r)],
                         ShmSegment::Open(parts.second, r, peer_bytes));
  }
  DLP_RETURN_IF_ERROR(store->Set(absl::StrCat(mapped_prefix, o.rank), ""));
  // Once everyone mapped it, the name can go (as for the ring's segments).
  DLP_RETURN_IF_ERROR(store->Wait(mapped, o.timeout));
  (*own)->Unlink();
  return std::shared_ptr<SharedWindow>(new SharedWindow(std::move(blocks)));
}

char* SharedWindow::block(int rank) const { return blocks_[static_cast<size_t>(rank)]->ring(); }

size_t SharedWindow::bytes(int rank) const {
  return blocks_[static_cast<size_t>(rank)]->capacity();
}

bool SharedWindow::Holds(int rank, const void* p, size_t n) const {
  const auto at = reinterpret_cast<uintptr_t>(p), begin = reinterpret_cast<uintptr_t>(block(rank));
  return at >= begin && at - begin <= bytes(rank) && n <= bytes(rank) - (at - begin);
}

int WindowRegistry::Add(std::shared_ptr<const SharedWindow> window) {
  windows_.push_back(std::move(window));
  return size() - 1;
}

WindowRegistry::Place WindowRegistry::Find(int rank, const void* p, size_t bytes) const {
  for (int w = 0; w < size(); ++w) {
    const SharedWindow& window = *windows_[static_cast<size_t>(w)];
    if (window.Holds(rank, p, bytes)) {
      return {w, static_cast<uint64_t>(static_cast<const char*>(p) - window.block(rank))};
    }
  }
  return {};
}

char* WindowRegistry::Resolve(int rank, Place place, size_t bytes) const {
  if (place.window < 0 || place.window >= size()) return nullptr;
  const SharedWindow& window = *windows_[static_cast<size_t>(place.window)];
  if (place.offset > window.bytes(rank)) return nullptr;
  char* p = window.block(rank) + place.offset;
  return window.Holds(rank, p, bytes) ? p : nullptr;
}

}  // namespace dlp::runtime
