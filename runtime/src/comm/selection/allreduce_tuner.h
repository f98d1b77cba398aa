// Which algorithm a shared-memory group's allreduce runs, among those the
// cost model cannot rank on a given machine, decided by measuring them there:
// one-shot, direct or the ring up to kOneShotMaxBytes, direct or the ring
// beyond.
//
// Their order depends on the machine, and on a VM on where the host puts its
// cores at the time, more than the model predicts: with 2 ranks one VM's
// direct wins from 16 KiB, another's one-shot up to 256 KiB (1.2x), and its
// ring beats direct by 1.3-1.7x at 1-4 MiB in some hours and loses in others
// (bench/history/RESULTS-2026.md, "Measured, not predicted"). So the first calls of each
// size class (a power of two) go to each candidate in turn, kSettle calls
// untimed and then kTrials timed, each rank timing its own; then every rank
// writes its lower medians in its segment, the group passes a barrier, and
// every rank takes the algorithm whose slowest rank's median is lowest. All
// ranks read the same figures, so all choose alike; the choice holds for the
// communicator's life.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "comm/selection/algo_select.h"
#include "comm/transports/shm_group.h"

namespace dlp::runtime {

class AllreduceTuner {
 public:
  // Calls of each candidate per size class: untimed first, then timed. An
  // algorithm that follows another finds the caches and the peers' waiting
  // set for the other: the ring after direct took 1.5-2x its own time for
  // up to 10 calls, so each candidate runs its calls together.
  static constexpr int kSettle = 4;
  static constexpr int kTrials = 8;
  static constexpr int kMostCandidates = ShmGroup::kTunedFigures;
  static constexpr int kMostTrialCalls = kMostCandidates * (kSettle + kTrials);
  // Beyond this one-shot's N-fold reduction loses wherever it was measured.
  static constexpr size_t kOneShotMaxBytes = 512 << 10;

  // The size class of `bytes`: 2^(c-1) < bytes <= 2^c.
  static constexpr int ClassOf(size_t bytes) {
    return static_cast<int>(std::bit_width((bytes > 0 ? bytes : 1) - 1));
  }
  // The algorithms tried for `bytes`.
  static absl::Span<const Algo> Candidates(size_t bytes);
  // Whether allreduces for which the table chose `table` are tuned: where it
  // chose among the algorithms of a shared-memory group.
  static constexpr bool Tunes(Algo table) {
    return table == Algo::kOneShot || table == Algo::kDirect || table == Algo::kRing;
  }

  struct Pick {
    Algo algo;
    bool timed;  // report the call's time with Record
  };
  // The algorithm this call of `bytes` runs. Every rank must ask for every
  // tuned call, in the same order; the call that ends a class's trials first
  // passes a barrier of `g`.
  absl::StatusOr<Pick> Next(ShmGroup& g, size_t bytes);
  // How long the call that Next timed took on this rank.
  void Record(size_t bytes, Algo ran, absl::Duration took);

 private:
  struct SizeClass {
    int calls = 0;  // trial calls planned so far
    std::array<std::vector<double>, kMostCandidates> seconds;  // each candidate's
    bool decided = false;
    Algo choice = Algo::kDirect;
  };
  // Publishes this rank's medians, waits for every rank's, and chooses.
  absl::StatusOr<Algo> Decide(ShmGroup& g, size_t bytes);

  std::array<SizeClass, ShmGroup::kTunedClasses> classes_;
};

static_assert(AllreduceTuner::ClassOf(~size_t{0}) < ShmGroup::kTunedClasses);

}  // namespace dlp::runtime
