// The shared-memory group: when every rank of a communicator is on one host,
// each rank maps every other rank's segment (shm_link.h's ShmSegment), so a
// rank can read any peer's staged data directly instead of through ring hops.
//
// A segment holds, per lane (one per channel thread), two round numbers that
// only its owner advances and the peers wait on, and three slots:
//   in[2]  this rank's input of a round (alternating by round parity)
//   out    the slice of a round this rank reduced
// The algorithms over a group are in direct.h; the ordering argument that
// makes one `out` slot and two `in` slots enough is there too.
//
// Waiting spins briefly and then sleeps on the rank's doorbell (a futex); a
// publisher wakes only peers that sleep. With a core per rank the spin lasts
// up to 30 us, long enough to catch a peer that is running (a futex wake-up
// on a busy host costs more); when the host has fewer cores than local ranks
// it is a few pauses, then the rank yields its core (link.h's YieldUntil) before
// it sleeps, so a peer on the same core runs at once; and a publisher
// defers its wake-ups until it has to wait itself (or the collective ends):
// a woken peer would otherwise preempt it in the middle of its work, and the
// critical path would wait for it to be scheduled back.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "comm/core/comm_env.h"
#include "comm/transports/shm_link.h"

namespace dlp::runtime {

class ShmGroup {
 public:
  // Bytes of one slot: the most one round of a lane can stage.
  static constexpr size_t kSlotBytes = 1 << 20;
  // The data bytes of a segment with `lanes` lanes.
  static size_t SegmentBytes(int lanes);

  enum Seq { kIn = 0, kOut = 1 };

  // `segments[r]` is rank r's segment (this rank's own among them).
  ShmGroup(int rank, int lanes, std::vector<std::shared_ptr<ShmSegment>> segments,
           absl::Duration timeout, bool oversubscribed);

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(segments_.size()); }
  int lanes() const { return lanes_; }
  bool oversubscribed() const { return oversubscribed_; }

  // The next round number of `lane` (the same on every rank, since all ranks
  // run the same collectives in the same order).
  uint64_t NextRound(int lane) { return ++rounds_[static_cast<size_t>(lane)]; }
  char* in(int rank, int lane, uint64_t round) const;
  char* out(int rank, int lane) const;
  // kNoteBytes of `rank`'s segment (64-byte aligned) that only its owner
  // writes, for a collective's arguments that the peers read (zero_copy.h).
  static constexpr size_t kNoteBytes = 64;
  char* note(int rank) const;
  // A counter on its own cache line of `rank`'s segment, for a collective
  // whose ranks share out work as it goes (zero_copy.h): only its owner
  // resets it, between rounds; peers only add to it.
  std::atomic<uint64_t>& claim(int rank) const;
  // kTunedClasses · kTunedFigures doubles of `rank`'s segment that only its
  // owner writes: its timings of each size class (allreduce_tuner.h), a
  // class for each bit width of a size_t.
  static constexpr int kTunedClasses = 65;
  static constexpr int kTunedFigures = 3;
  double* tuning(int rank) const;

  // Makes this rank's sequence `which` of `lane` equal `round` and wakes the
  // peers that sleep (at once, or when oversubscribed at the next wait or
  // Flush). Data written before is visible to a peer that saw it.
  void Publish(int lane, Seq which, uint64_t round);
  // Wakes the peers a deferred Publish left asleep. Every algorithm calls it
  // before it returns.
  void Flush(int lane);
  // Waits until `peer`'s sequence reaches `round`. Fails (naming the peer in
  // kPeerPayload) when the peer died or left, or after the timeout without it.
  absl::Status WaitFor(int peer, int lane, Seq which, uint64_t round, const char* what);
  absl::Status WaitForAll(int lane, Seq which, uint64_t round, const char* what);

  // Marks this rank gone and wakes the peers, so that they fail fast.
  void Abandon();

 private:
  static constexpr int kShortSpins = 32;  // pauses, when ranks share cores
  std::atomic<uint64_t>& seq(int rank, int lane, Seq which) const;
  absl::Status Fail(const absl::Status& s, const char* what, int peer) const;

  int rank_;
  int lanes_;
  std::vector<std::shared_ptr<ShmSegment>> segments_;
  absl::Duration timeout_;
  bool oversubscribed_;
  // Publish() without a fence, its sleeping peers fencing for it (asymmetric_fence.h):
  // with a core per rank a rank publishes far more often than a peer sleeps.
  // Ranks that share cores sleep often, so there both sides fence.
  bool light_publish_;
  std::vector<uint64_t> rounds_;
  std::vector<char> wake_pending_;  // per lane, with deferred wake-ups
};

}  // namespace dlp::runtime
