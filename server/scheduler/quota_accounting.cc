#include "server/scheduler/quota_accounting.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace dlp::server::fair_share {
namespace {

using dlp::base::SaturatingAdd;
using dlp::base::SaturatingSub;

int64_t Positive(int64_t v) { return std::max<int64_t>(v, 0); }

}  // namespace

QuotaModel::QuotaModel(const Snapshot& snapshot)
    : implicit_(snapshot.queues.empty()), devices_(DevicesOf(snapshot)) {
  dim_names_ = {"cpu", "memory", "gpu"};
  std::set<std::string> flavours;
  for (const auto& [f, n] : snapshot.capacity.gpu_flavours) flavours.insert(f);
  for (const QueueConfig& q : snapshot.queues) {
    for (const auto& [f, n] : q.nominal.gpu_flavours) flavours.insert(f);
    if (q.borrowing_limit) {
      for (const auto& [f, n] : q.borrowing_limit->gpu_flavours) flavours.insert(f);
    }
  }
  for (const std::string& f : flavours) dim_names_.push_back("gpu." + f);
  capacity_ = AmountsOf(snapshot.capacity);
  for (int d = kGpu + 1; d < dims(); ++d) {
    // A flavour the machine does not count is bounded by placement alone.
    if (!snapshot.capacity.gpu_flavours.contains(dim_names_[d].substr(4))) {
      capacity_[d] = kUnlimited;
    }
  }
  std::map<std::string, int> cohorts;
  for (const QueueConfig& q : snapshot.queues) AddQueue(q, true);
  std::set<std::string> named;
  for (const RunningJob& j : snapshot.running) {
    if (!index_.contains(j.queue)) named.insert(j.queue);
  }
  for (const PendingJob& j : snapshot.pending) {
    if (!index_.contains(j.queue)) named.insert(j.queue);
  }
  for (const std::string& name : named) {
    if (implicit_) {
      AddQueue(ImplicitQueue(name, snapshot.capacity), true);
    } else {
      QueueConfig unknown;  // no quota at all: its jobs wait, explained
      unknown.name = name;
      AddQueue(unknown, false);
    }
  }
  history_ = !implicit_ && snapshot.fair_share_half_life > absl::ZeroDuration();
  for (QueueQuota& q : queues_) {
    auto used = snapshot.decayed_use.find(q.config.name);
    q.history = history_ && used != snapshot.decayed_use.end() ? AmountsOf(used->second)
                                                               : Amounts(dims(), 0);
  }
  for (QueueQuota& q : queues_) {
    const std::string& cohort = q.config.cohort;
    if (cohort.empty() || !cohorts.contains(cohort)) {
      if (!cohort.empty()) cohorts[cohort] = static_cast<int>(pools_.size());
      q.cohort = static_cast<int>(pools_.size());
      pools_.emplace_back(dims(), 0);
      cohort_sizes_.push_back(0);
    } else {
      q.cohort = cohorts[cohort];
    }
    ++cohort_sizes_[q.cohort];
    for (int d = 0; d < dims(); ++d) {
      pools_[q.cohort][d] = SaturatingAdd(pools_[q.cohort][d], q.lendable[d]);
    }
  }
}

int QuotaModel::AddQueue(QueueConfig config, bool known) {
  QueueQuota q;
  q.known = known;
  q.nominal = AmountsOf(config.nominal);
  // The GPU total covers the flavours it names (gpu.h100=4 is also 4 gpu).
  int64_t flavoured = 0;
  for (const auto& [f, n] : config.nominal.gpu_flavours) flavoured = SaturatingAdd(flavoured, n);
  q.nominal[kGpu] = std::max(q.nominal[kGpu], flavoured);
  // An implicit queue's quota is the machine: the machine's check suffices.
  q.limited.assign(dims(), !implicit_);
  for (int d = kGpu + 1; d < dims() && !implicit_; ++d) {
    const std::string flavour = dim_names_[d].substr(4);
    q.limited[d] =
        config.nominal.gpu_flavours.contains(flavour) ||
        (config.borrowing_limit && config.borrowing_limit->gpu_flavours.contains(flavour));
  }
  q.lendable = q.nominal;
  if (config.lending_limit) {
    const Amounts limit = AmountsOf(*config.lending_limit);
    for (int d = 0; d < dims(); ++d) q.lendable[d] = std::min(q.nominal[d], limit[d]);
  }
  q.guaranteed.resize(dims());
  for (int d = 0; d < dims(); ++d) q.guaranteed[d] = q.nominal[d] - q.lendable[d];
  q.max_use.assign(dims(), kUnlimited);
  if (config.borrowing_limit) {
    const Amounts limit = AmountsOf(*config.borrowing_limit);
    for (int d = 0; d < dims(); ++d) q.max_use[d] = SaturatingAdd(q.nominal[d], limit[d]);
  }
  q.config = std::move(config);
  index_.emplace(q.config.name, queue_count());
  queues_.push_back(std::move(q));
  return queue_count() - 1;
}

int QuotaModel::QueueIndex(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

Amounts QuotaModel::AmountsOf(const ResourceVector& v) const {
  Amounts out(dims(), 0);
  out[kCpu] = v.cpu_millis;
  out[kMemory] = v.memory_bytes;
  out[kGpu] = v.gpu_millis;
  for (int d = kGpu + 1; d < dims(); ++d) {
    auto it = v.gpu_flavours.find(dim_names_[d].substr(4));
    if (it != v.gpu_flavours.end()) out[d] = it->second;
  }
  return out;
}

ResourceVector QuotaModel::FreeOf(const Ledger& ledger) const {
  return {ledger.free[kCpu], ledger.free[kMemory], ledger.free[kGpu]};
}

Ledger QuotaModel::EmptyLedger() const {
  Ledger ledger;
  ledger.free = capacity_;
  ledger.used.assign(static_cast<size_t>(queue_count()) * dims(), 0);
  ledger.over.assign(pools_.size() * dims(), 0);
  return ledger;
}

void QuotaModel::Take(Ledger& ledger, int queue, const Amounts& demand) const {
  const QueueQuota& q = queues_[queue];
  for (int d = 0; d < dims(); ++d) {
    if (ledger.free[d] != kUnlimited) ledger.free[d] = SaturatingSub(ledger.free[d], demand[d]);
    int64_t& used = ledger.used[static_cast<size_t>(queue) * dims() + d];
    int64_t& over = ledger.over[static_cast<size_t>(q.cohort) * dims() + d];
    const int64_t before = Positive(used - q.guaranteed[d]);
    used = SaturatingAdd(used, demand[d]);
    over = SaturatingAdd(over, Positive(SaturatingSub(used, q.guaranteed[d])) - before);
  }
}

void QuotaModel::Give(Ledger& ledger, int queue, const Amounts& demand) const {
  const QueueQuota& q = queues_[queue];
  for (int d = 0; d < dims(); ++d) {
    if (ledger.free[d] != kUnlimited) ledger.free[d] = SaturatingAdd(ledger.free[d], demand[d]);
    int64_t& used = ledger.used[static_cast<size_t>(queue) * dims() + d];
    int64_t& over = ledger.over[static_cast<size_t>(q.cohort) * dims() + d];
    const int64_t before = Positive(used - q.guaranteed[d]);
    used = SaturatingSub(used, demand[d]);
    over -= before - Positive(SaturatingSub(used, q.guaranteed[d]));
  }
}

Block QuotaModel::Check(const Ledger& ledger, int queue, const Amounts& demand,
                        bool may_borrow) const {
  const QueueQuota& q = queues_[queue];
  const int64_t* used = &ledger.used[static_cast<size_t>(queue) * dims()];
  const int64_t* over = &ledger.over[static_cast<size_t>(q.cohort) * dims()];
  for (int d = 0; d < dims(); ++d) {
    if (demand[d] <= 0 || !q.limited[d]) continue;
    const int64_t after = SaturatingAdd(used[d], demand[d]);
    if (after > (may_borrow ? q.max_use[d] : q.nominal[d])) return {Block::kQueueLimit, d};
    const int64_t grows = Positive(SaturatingSub(after, q.guaranteed[d])) -
                          Positive(SaturatingSub(used[d], q.guaranteed[d]));
    if (SaturatingAdd(over[d], grows) > pools_[q.cohort][d]) return {Block::kCohort, d};
  }
  for (int d = 0; d < dims(); ++d) {
    if (demand[d] > 0 && demand[d] > ledger.free[d]) return {Block::kMachine, d};
  }
  return {};
}

int64_t QuotaModel::MostUsable(int queue, int d) const {
  const QueueQuota& q = queues_[queue];
  return std::min(q.max_use[d], SaturatingAdd(q.guaranteed[d], pools_[q.cohort][d]));
}

double QuotaModel::BorrowedShare(const Ledger& ledger, int queue) const {
  return BorrowedShare(ledger, queue, Amounts(dims(), 0));
}

double QuotaModel::BorrowedShare(const Ledger& ledger, int queue, const Amounts& extra) const {
  const QueueQuota& q = queues_[queue];
  double dominant = 0;
  for (int d = 0; d < dims(); ++d) {
    const int64_t borrowed =
        Positive(SaturatingSub(SaturatingAdd(Used(ledger, queue, d), extra[d]), q.nominal[d]));
    const int64_t pool = pools_[q.cohort][d];
    if (borrowed > 0 && pool > 0) {
      dominant = std::max(dominant, static_cast<double>(borrowed) / static_cast<double>(pool));
    }
  }
  return dominant / std::max(1, q.config.weight);
}

double QuotaModel::Standing(const Ledger& ledger, int queue) const {
  return Standing(ledger, queue, Amounts(dims(), 0));
}

double QuotaModel::Standing(const Ledger& ledger, int queue, const Amounts& extra) const {
  if (!history_) return BorrowedShare(ledger, queue, extra);
  const QueueQuota& q = queues_[queue];
  bool any = false;
  double dominant = 0;
  for (int d = 0; d < dims(); ++d) {
    const int64_t pool = pools_[q.cohort][d];
    if (!q.limited[d] || pool <= 0) continue;
    // In double: the sum of three int64 amounts may pass int64.
    const double use =
        (static_cast<double>(q.history[d]) + static_cast<double>(Used(ledger, queue, d)) +
         static_cast<double>(extra[d])) /
        2;
    const double share = (use - static_cast<double>(q.nominal[d])) / static_cast<double>(pool);
    dominant = any ? std::max(dominant, share) : share;
    any = true;
  }
  return dominant / std::max(1, q.config.weight);
}

std::pair<int64_t, int> QuotaModel::HistoryPercent(int queue) const {
  const QueueQuota& q = queues_[queue];
  std::pair<int64_t, int> out{0, kGpu};
  double most = -1;
  for (int d : {int{kGpu}, int{kCpu}, int{kMemory}}) {
    if (!q.limited[d] || q.nominal[d] <= 0) continue;
    const double fraction = static_cast<double>(q.history[d]) / static_cast<double>(q.nominal[d]);
    if (fraction > most) {
      most = fraction;
      out = {std::llround(std::min(fraction, 1e6) * 100), d};
    }
  }
  return out;
}

bool QuotaModel::WithinNominal(const Ledger& ledger, int queue, const Amounts& demand) const {
  const QueueQuota& q = queues_[queue];
  for (int d = 0; d < dims(); ++d) {
    if (demand[d] > 0 && q.limited[d] &&
        SaturatingAdd(Used(ledger, queue, d), demand[d]) > q.nominal[d]) {
      return false;
    }
  }
  return true;
}

bool QuotaModel::BelowNominal(const Ledger& ledger, int queue, const Amounts& demand) const {
  const QueueQuota& q = queues_[queue];
  bool asks = false;
  for (int d = 0; d < dims(); ++d) {
    if (demand[d] <= 0 || !q.limited[d]) continue;
    if (Used(ledger, queue, d) >= q.nominal[d]) return false;
    asks = true;
  }
  return asks;
}

std::string QuotaModel::Describe(int d, int64_t amount) const {
  if (amount == kUnlimited) return absl::StrCat("unlimited ", dim_names_[d]);
  if (d == kMemory) return absl::StrCat(DescribeMemory(amount), " memory");
  if (amount % 1000 == 0) return absl::StrCat(amount / 1000, " ", dim_names_[d]);
  return absl::StrFormat("%g %s", static_cast<double>(amount) / 1000.0, dim_names_[d]);
}

std::string QuotaModel::DescribeDemand(const Amounts& demand) const {
  std::string out;
  for (int d = 0; d < dims(); ++d) {
    if (demand[d] > 0) absl::StrAppend(&out, out.empty() ? "" : ", ", Describe(d, demand[d]));
  }
  return out.empty() ? "nothing" : out;
}

}  // namespace dlp::server::fair_share
