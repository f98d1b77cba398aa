// Fair-share history: what each queue has used lately, as Slurm's
// multifactor priority keeps it (PriorityDecayHalfLife). Each queue's use of
// every resource (cpu, memory, gpu, each GPU flavour) is averaged over time
// with exponentially decaying weights: use that is one half-life old counts
// half as much as use now. The average is in the resource's own units (milli-
// CPUs, bytes, milli-GPUs), so a queue that held 8 GPUs for the last few
// half-lives has an average of 8000 milli-GPUs, one that held 16 GPUs for
// one half-life and nothing before has 8000 as well.
//
// Between two calls of Advance the running jobs are taken to hold what they
// hold at the second call's start: the average follows
//   avg(t + dt) = avg(t) * 2^(-dt / half_life) + use * (1 - 2^(-dt / half_life))
// exactly for a use that is constant over dt. Every average stays between 0
// and the largest use seen, so nothing can overflow; a dt below zero (a clock
// set back) counts as zero.
//
// dlpd's controller and the simulator (simulator.h) both keep one and fill
// each snapshot from it, so the policy sees the same history in both. Not
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server {

// dlpd's default (--fair-share-half-life), chosen on dlp-bench-policy-sim
// over four traces (bench/history/RESULTS-2026.md, "Fair-share history").
inline constexpr absl::Duration kDefaultFairShareHalfLife = absl::Hours(1);
// The most a half-life may be: longer ones are refused (--fair-share-half-life).
inline constexpr absl::Duration kMaxFairShareHalfLife = absl::Hours(24 * 30);

// "1h", "30m", "90s", "0" (off); InvalidArgument for anything else, a
// negative duration or one above kMaxFairShareHalfLife.
absl::StatusOr<absl::Duration> ParseHalfLife(const std::string& text);

// One queue's averaged use of one resource ("cpu", "memory", "gpu",
// "gpu.h100"), for the store (JobStore::SaveQueueHistory).
struct QueueHistoryRow {
  std::string queue;
  std::string resource;
  double average = 0;
  friend bool operator==(const QueueHistoryRow&, const QueueHistoryRow&) = default;
};

class FairShareHistory {
 public:
  // A zero half-life keeps no history: Advance does nothing and Fill leaves
  // the snapshot without one (the policy then sees only what runs now).
  explicit FairShareHistory(absl::Duration half_life);

  absl::Duration half_life() const { return half_life_; }
  bool enabled() const { return half_life_ > absl::ZeroDuration(); }
  absl::Time at() const { return at_; }

  // `running` held what it holds from the last call (or Restore) until
  // `now`. The first call only starts the clock.
  void Advance(absl::Time now, const std::vector<RunningJob>& running);
  // Sets snapshot.fair_share_half_life and snapshot.decayed_use.
  void Fill(Snapshot& snapshot) const;
  // Each queue's averages, as the snapshot has them (rounded).
  std::map<std::string, ResourceVector> Averages() const;

  // What the store keeps: the averages as of at(). Restore takes them back
  // (rows of unknown resources or with values outside [0, 1e30] are
  // skipped); the next Advance counts from `at`.
  std::vector<QueueHistoryRow> Rows() const;
  void Restore(absl::Time at, const std::vector<QueueHistoryRow>& rows);

 private:
  struct Use {
    double cpu = 0, memory = 0, gpu = 0;
    std::map<std::string, double> flavours;
  };

  absl::Duration half_life_;
  absl::Time at_ = absl::InfinitePast();
  std::map<std::string, Use> queues_;
};

}  // namespace dlp::server
