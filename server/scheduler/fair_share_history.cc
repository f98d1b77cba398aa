#include "server/scheduler/fair_share_history.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "dlp/admin.h"

namespace dlp::server {
namespace {

// Averages past this are not a use any machine has: a corrupt row.
constexpr double kMostAverage = 1e30;

int64_t Rounded(double v) {
  // Averages are bounded by uses, which are int64: the clamp only guards
  // against rounding at the very top.
  if (!(v > 0)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  return std::llround(v);
}

}  // namespace

absl::StatusOr<absl::Duration> ParseHalfLife(const std::string& text) {
  if (text == "0") return absl::ZeroDuration();
  absl::StatusOr<absl::Duration> d = ParseTokenLifetime(text);
  if (!d.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a half-life such as 30m, 1h or 2d, or 0 (off), got \"", text, "\""));
  }
  if (*d > kMaxFairShareHalfLife) {
    return absl::InvalidArgumentError(absl::StrCat("a half-life of at most ",
                                                   kMaxFairShareHalfLife / absl::Hours(24),
                                                   "d is accepted, got \"", text, "\""));
  }
  return *d;
}

FairShareHistory::FairShareHistory(absl::Duration half_life)
    : half_life_(std::clamp(half_life, absl::ZeroDuration(), kMaxFairShareHalfLife)) {}

void FairShareHistory::Advance(absl::Time now, const std::vector<RunningJob>& running) {
  if (!enabled()) return;
  if (at_ == absl::InfinitePast() || now <= at_) {
    if (at_ == absl::InfinitePast()) at_ = now;
    return;  // the first call, or no time passed (or the clock went back)
  }
  // The weight of what was before: 2^(-dt / half-life), 0 past ~1000 half-lives.
  const double keep = std::exp2(-absl::FDivDuration(now - at_, half_life_));
  const double add = 1 - keep;
  at_ = now;
  std::map<std::string, ResourceVector> use;
  for (const RunningJob& job : running) use[job.queue] += job.demand;
  for (auto& [queue, u] : queues_) {
    u.cpu *= keep;
    u.memory *= keep;
    u.gpu *= keep;
    for (auto& [f, v] : u.flavours) v *= keep;
  }
  for (const auto& [queue, held] : use) {
    Use& u = queues_[queue];
    u.cpu += add * static_cast<double>(held.cpu_millis);
    u.memory += add * static_cast<double>(held.memory_bytes);
    u.gpu += add * static_cast<double>(held.gpu_millis);
    for (const auto& [f, v] : held.gpu_flavours) u.flavours[f] += add * static_cast<double>(v);
  }
  // A queue whose use has decayed to nothing is forgotten: a daemon without
  // configured queues accepts any queue name, and their history must not grow
  // without bound.
  std::erase_if(queues_, [&](const auto& entry) {
    const Use& u = entry.second;
    if (use.contains(entry.first) || u.cpu >= 0.5 || u.memory >= 0.5 || u.gpu >= 0.5) {
      return false;
    }
    return std::all_of(u.flavours.begin(), u.flavours.end(),
                       [](const auto& f) { return f.second < 0.5; });
  });
}

std::map<std::string, ResourceVector> FairShareHistory::Averages() const {
  std::map<std::string, ResourceVector> out;
  for (const auto& [queue, u] : queues_) {
    ResourceVector& v = out[queue];
    v.cpu_millis = Rounded(u.cpu);
    v.memory_bytes = Rounded(u.memory);
    v.gpu_millis = Rounded(u.gpu);
    for (const auto& [f, x] : u.flavours) v.gpu_flavours[f] = Rounded(x);
  }
  return out;
}

void FairShareHistory::Fill(Snapshot& snapshot) const {
  snapshot.fair_share_half_life = half_life_;
  snapshot.decayed_use.clear();
  if (enabled()) snapshot.decayed_use = Averages();
}

std::vector<QueueHistoryRow> FairShareHistory::Rows() const {
  std::vector<QueueHistoryRow> rows;
  for (const auto& [queue, u] : queues_) {
    rows.push_back({queue, "cpu", u.cpu});
    rows.push_back({queue, "memory", u.memory});
    rows.push_back({queue, "gpu", u.gpu});
    for (const auto& [f, v] : u.flavours) rows.push_back({queue, "gpu." + f, v});
  }
  return rows;
}

void FairShareHistory::Restore(absl::Time at, const std::vector<QueueHistoryRow>& rows) {
  queues_.clear();
  at_ = at;
  for (const QueueHistoryRow& row : rows) {
    if (!(row.average >= 0 && row.average <= kMostAverage)) continue;
    if (row.resource == "cpu") {
      queues_[row.queue].cpu = row.average;
    } else if (row.resource == "memory") {
      queues_[row.queue].memory = row.average;
    } else if (row.resource == "gpu") {
      queues_[row.queue].gpu = row.average;
    } else if (absl::StartsWith(row.resource, "gpu.") && row.resource.size() > 4) {
      queues_[row.queue].flavours[row.resource.substr(4)] = row.average;
    }
  }
}

}  // namespace dlp::server
