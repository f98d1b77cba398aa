#include "comm/transports/shm_group.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "comm/transports/asymmetric_fence.h"
#include "comm/transports/peer_error.h"

namespace dlp::runtime {
namespace {

// Segment layout: a page of lane controls, then the slots lane by lane.
constexpr size_t kControlBytes = 4096;
constexpr size_t kLaneControl = 128;  // two sequences, each on its own cache line
constexpr size_t kSlotsPerLane = 3;   // in[0], in[1], out
// How long a sleeping rank waits before it looks at the peer's liveness.
constexpr absl::Duration kCheckInterval = absl::Milliseconds(100);

constexpr size_t kNoteOffset = kLaneControl * kMaxChannels;  // after the lanes' controls
constexpr size_t kClaimOffset = kNoteOffset + ShmGroup::kNoteBytes;

constexpr size_t kTuningOffset = kClaimOffset + 64;

static_assert(kTuningOffset + ShmGroup::kTunedClasses * ShmGroup::kTunedFigures * sizeof(double) <=
              kControlBytes);

}  // namespace

size_t ShmGroup::SegmentBytes(int lanes) {
  return kControlBytes + static_cast<size_t>(lanes) * kSlotsPerLane * kSlotBytes;
}

ShmGroup::ShmGroup(int rank, int lanes, std::vector<std::shared_ptr<ShmSegment>> segments,
                   absl::Duration timeout, bool oversubscribed)
    : rank_(rank),
      lanes_(lanes),
      segments_(std::move(segments)),
      timeout_(timeout),
      oversubscribed_(oversubscribed),
      light_publish_(!oversubscribed && AsymmetricFenceAvailable()),
      rounds_(static_cast<size_t>(lanes), 0),
      wake_pending_(static_cast<size_t>(lanes), 0) {}

std::atomic<uint64_t>& ShmGroup::seq(int rank, int lane, Seq which) const {
  char* control = segments_[static_cast<size_t>(rank)]->ring() +
                  static_cast<size_t>(lane) * kLaneControl + static_cast<size_t>(which) * 64;
  return *reinterpret_cast<std::atomic<uint64_t>*>(control);
}

char* ShmGroup::in(int rank, int lane, uint64_t round) const {
  return segments_[static_cast<size_t>(rank)]->ring() + kControlBytes +
         (static_cast<size_t>(lane) * kSlotsPerLane + round % 2) * kSlotBytes;
}

char* ShmGroup::note(int rank) const {
  return segments_[static_cast<size_t>(rank)]->ring() + kNoteOffset;
}

std::atomic<uint64_t>& ShmGroup::claim(int rank) const {
  return *reinterpret_cast<std::atomic<uint64_t>*>(segments_[static_cast<size_t>(rank)]->ring() +
                                                   kClaimOffset);
}

double* ShmGroup::tuning(int rank) const {
  return reinterpret_cast<double*>(segments_[static_cast<size_t>(rank)]->ring() + kTuningOffset);
}

char* ShmGroup::out(int rank, int lane) const {
  return segments_[static_cast<size_t>(rank)]->ring() + kControlBytes +
         (static_cast<size_t>(lane) * kSlotsPerLane + 2) * kSlotBytes;
}

void ShmGroup::Publish(int lane, Seq which, uint64_t round) {
  if (light_publish_) {
    seq(rank_, lane, which).store(round, std::memory_order_release);
    LightFence();
  } else {
    seq(rank_, lane, which).store(round, std::memory_order_seq_cst);
  }
  wake_pending_[static_cast<size_t>(lane)] = 1;
  if (!oversubscribed()) Flush(lane);
}

void ShmGroup::Flush(int lane) {
  char& pending = wake_pending_[static_cast<size_t>(lane)];
  if (!pending) return;
  pending = 0;
  for (int r = 0; r < size(); ++r) {
    if (r != rank_) segments_[static_cast<size_t>(r)]->bell()->WakeIfSleeping();
  }
}

absl::Status ShmGroup::Fail(const absl::Status& s, const char* what, int peer) const {
  return PeerError(s, what, rank_, peer);
}

absl::Status ShmGroup::WaitFor(int peer, int lane, Seq which, uint64_t round, const char* what) {
  std::atomic<uint64_t>& theirs = seq(peer, lane, which);
  auto ready = [&] { return theirs.load(std::memory_order_acquire) >= round; };
  if (oversubscribed_) {
    if (SpinUntil(ready, kShortSpins)) return absl::OkStatus();
  } else if (SpinFor(ready, kSpinBudget)) {
    return absl::OkStatus();
  }
  Flush(lane);
  if (oversubscribed_ && YieldUntil(ready, kYieldBudget)) return absl::OkStatus();
  Doorbell* bell = segments_[static_cast<size_t>(rank_)]->bell();
  const absl::Time start = absl::Now();
  while (true) {
    bell->SleepUnless(ready, kCheckInterval, light_publish_);
    if (ready()) return absl::OkStatus();
    // Only an unpublished round is waited on: a peer that finished and left
    // after publishing is not an error.
    if (absl::Status s = segments_[static_cast<size_t>(peer)]->CheckOwner(); !s.ok()) {
      return ready() ? absl::OkStatus() : Fail(s, what, peer);
    }
    if (absl::Now() - start > timeout_) {
      return Fail(absl::DeadlineExceededError(absl::StrFormat("no data from rank %d for %s", peer,
                                                              absl::FormatDuration(timeout_))),
                  what, peer);
    }
  }
}

absl::Status ShmGroup::WaitForAll(int lane, Seq which, uint64_t round, const char* what) {
  // Ranks after this one first: they are the ones most likely still behind.
  for (int i = 1; i < size(); ++i) {
    int peer = (rank_ + i) % size();
    if (absl::Status s = WaitFor(peer, lane, which, round, what); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void ShmGroup::Abandon() {
  segments_[static_cast<size_t>(rank_)]->MarkGone();
  for (int r = 0; r < size(); ++r) {
    if (r != rank_) segments_[static_cast<size_t>(r)]->bell()->Ring();
  }
}

}  // namespace dlp::runtime
