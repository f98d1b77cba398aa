// Quotas as flat numbers, and a ledger of what is in use, for the fair-share
// policy. Each resource is one dimension: cpu, memory, gpu, then every GPU
// flavour that the capacity or a queue names ("gpu.h100").
//
// The cohort model (Kueue's, in dlp's words): a queue's nominal quota is
// split into a guaranteed part (nominal - lending limit) that only it uses,
// and a lendable part that goes to its cohort's pool. A queue may use its
// guaranteed part plus whatever of the pool is free, up to nominal + its
// borrowing limit. So for every dimension of every cohort:
//   sum over its queues of max(0, used - guaranteed) <= sum of lendable parts.
// A queue without a cohort is a cohort of its own (it borrows nothing).
// What a queue uses beyond its nominal quota is what it borrows.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "server/scheduler/gpu_placement.h"
#include "server/scheduler/snapshot.h"

namespace dlp::server::fair_share {

// One value per dimension; inline for cpu, memory, gpu and a flavour, so that
// a round does not allocate one per pending job.
using Amounts = absl::InlinedVector<int64_t, 4>;
inline constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
enum Dim { kCpu = 0, kMemory = 1, kGpu = 2 };  // flavours follow

struct QueueQuota {
  QueueConfig config;
  bool known = true;  // false: jobs name it but no queue of that name is configured
  int cohort = 0;     // index into QuotaModel's cohorts
  Amounts nominal, guaranteed, lendable;
  Amounts max_use;            // nominal + borrowing limit (kUnlimited: none)
  std::vector<bool> limited;  // dimensions this queue's quota applies to
  Amounts history;            // its decayed average use (zeros: none)
};

// Which constraint a demand fails, if any.
struct Block {
  enum Kind { kNone, kMachine, kQueueLimit, kCohort, kPlacement } kind = kNone;
  int dim = 0;
  explicit operator bool() const { return kind != kNone; }
};

// What is in use: free machine amounts, per-device GPU use, per-queue use and
// per-cohort use of the pool. Cheap to copy (a few flat vectors and a map).
struct Ledger {
  Amounts free;
  DeviceUse devices;
  Amounts used;  // queue-major: used[queue * dims + dim]
  Amounts over;  // cohort-major: sum of max(0, used - guaranteed)
};

class QuotaModel {
 public:
  // Configured queues in order, then (or, with none configured, implicit
  // queues for) every other queue a job names, by name.
  explicit QuotaModel(const Snapshot& snapshot);

  bool implicit() const { return implicit_; }
  int dims() const { return static_cast<int>(dim_names_.size()); }
  const std::string& dim_name(int d) const { return dim_names_[d]; }
  int queue_count() const { return static_cast<int>(queues_.size()); }
  const QueueQuota& queue(int q) const { return queues_[q]; }
  int QueueIndex(const std::string& name) const;  // -1: none
  // The cohort's pool (sum of its queues' lendable parts), per dimension.
  const Amounts& pool(int cohort) const { return pools_[cohort]; }
  bool shared_cohort(int cohort) const { return cohort_sizes_[cohort] > 1; }
  const std::vector<GpuDevice>& devices() const { return devices_; }

  Amounts AmountsOf(const ResourceVector& v) const;
  // The machine's free amounts as a ResourceVector (cpu, memory, gpu).
  ResourceVector FreeOf(const Ledger& ledger) const;

  // The empty machine: nothing used.
  Ledger EmptyLedger() const;
  void Take(Ledger& ledger, int queue, const Amounts& demand) const;
  void Give(Ledger& ledger, int queue, const Amounts& demand) const;
  // Whether `demand` of `queue` fits the machine's totals and the quotas;
  // may_borrow = false holds the queue to its nominal quota.
  Block Check(const Ledger& ledger, int queue, const Amounts& demand, bool may_borrow = true) const;
  // The most `queue` may ever use of dimension d: its nominal quota plus
  // what it may borrow (bounded by its borrowing limit and the pool).
  int64_t MostUsable(int queue, int d) const;
  // Queue `queue`'s weighted dominant share of what it borrows: the largest
  // fraction of its cohort's pool it uses beyond nominal, over its weight.
  double BorrowedShare(const Ledger& ledger, int queue) const;
  // The same once `extra` more is in use (the ledger is not changed).
  double BorrowedShare(const Ledger& ledger, int queue, const Amounts& extra) const;
  // Whether the snapshot has a fair-share history (fair_share_history.h) that
  // the policy uses: a half-life is set and queues are configured.
  bool history() const { return history_; }
  // The order of queues among borrowers, and what reclaim compares (rule 2
  // and 5 of fair_share_policy.h), once `extra` more is in use. Without a
  // history, BorrowedShare. With one, the weighted dominant share of what
  // the queue uses beyond its nominal quota, signed (negative: below it),
  // where its use is the mean of its decayed average and what it holds now:
  //   max over d of ((history[d] + used[d] + extra[d]) / 2 - nominal[d]) / pool[d]
  // over its weight, for the dimensions its quota limits and its cohort pools.
  // So a queue that was below its share lately comes before one that was
  // above it, even while it runs a gang beyond its nominal quota.
  double Standing(const Ledger& ledger, int queue, const Amounts& extra) const;
  double Standing(const Ledger& ledger, int queue) const;
  // A queue's decayed average use of its nominal quota, in percent, in the
  // dimension where it is largest (gpu first on ties), and that dimension:
  // "47" and "gpu" for "used 47% of its nominal gpu".
  std::pair<int64_t, int> HistoryPercent(int queue) const;
  // Whether `demand` keeps `queue` within its nominal quota.
  bool WithinNominal(const Ledger& ledger, int queue, const Amounts& demand) const;
  // Whether `queue` uses less than its nominal quota of every resource
  // `demand` asks for: it wants quota back, if not all of what it asks.
  bool BelowNominal(const Ledger& ledger, int queue, const Amounts& demand) const;
  int64_t Used(const Ledger& ledger, int queue, int d) const {
    return ledger.used[static_cast<size_t>(queue) * dims() + d];
  }
  // "2 gpu", "4 cpu", "16Gi memory".
  std::string Describe(int d, int64_t amount) const;
  // Every non-zero dimension of `demand`: "4 cpu, 2 gpu".
  std::string DescribeDemand(const Amounts& demand) const;

 private:
  int AddQueue(QueueConfig config, bool known);

  bool implicit_ = false;
  bool history_ = false;
  std::vector<std::string> dim_names_;
  std::vector<QueueQuota> queues_;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<Amounts> pools_;
  std::vector<int> cohort_sizes_;
  Amounts capacity_;
  std::vector<GpuDevice> devices_;
};

}  // namespace dlp::server::fair_share
