#include "server/scheduler/sim_metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace dlp::server {
namespace {

double Fraction(double part, double whole) { return whole <= 0 ? 0 : part / whole; }

// Nearest-rank percentile of sorted values: the smallest value with at least
// `p` of them at or below it.
template <typename T>
const T& Percentile(const std::vector<T>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

void SimMetrics::ResourceIntegral::Add(const ResourceVector& used, double seconds) {
  cpu += static_cast<double>(used.cpu_millis) * seconds;
  memory += static_cast<double>(used.memory_bytes) * seconds;
  gpu += static_cast<double>(used.gpu_millis) * seconds;
}

SimMetrics::SimMetrics(const SimConfig& config, absl::Time origin, absl::Time last_arrival)
    : config_(config), origin_(origin), last_arrival_(last_arrival) {
  for (const auto& [tenant, weight] : config.tenant_weights) {
    tenants_[tenant].weight = std::max(1, weight);
  }
}

double SimMetrics::DominantShare(const ResourceVector& used) const {
  const ResourceVector& c = config_.capacity;
  return std::max({Fraction(used.cpu_millis, c.cpu_millis),
                   Fraction(used.memory_bytes, c.memory_bytes),
                   Fraction(used.gpu_millis, c.gpu_millis)});
}

void SimMetrics::Hold(const std::string& tenant, const ResourceVector& demand, int sign) {
  Tenant& t = tenants_[tenant];
  if (sign > 0) {
    t.used += demand;
    used_ += demand;
  } else {
    t.used -= demand;
    used_ -= demand;
  }
}

void SimMetrics::Waiting(const std::string& tenant, const ResourceVector& demand, int sign) {
  Tenant& t = tenants_[tenant];
  t.waiting += sign;
  if (sign > 0) {
    t.wanted += demand;
  } else {
    t.wanted -= demand;
  }
}

void SimMetrics::FairShares(std::map<std::string, double>& share,
                            std::map<std::string, double>& fair) const {
  double total = 0, weights = 0;
  std::map<std::string, double> demand;  // dominant share of what it holds and asks for
  std::vector<std::pair<double, const std::string*>> by_demand;  // demand/weight, tenant
  for (const auto& [name, t] : tenants_) {
    const double s = DominantShare(t.used);
    share[name] = s;
    fair[name] = 0;
    if (s <= 0 && t.waiting == 0) continue;
    total += s;
    weights += t.weight;
    ResourceVector wants = t.used;
    wants += t.wanted;
    demand[name] = DominantShare(wants);
    by_demand.push_back({demand[name] / t.weight, &name});
  }
  // Water-filling: the tenants whose demand is below the level get their
  // demand; the others get the level times their weight.
  std::sort(by_demand.begin(), by_demand.end());
  std::set<std::string> kept;
  for (const auto& [per_weight, name] : by_demand) {
    if (per_weight > total / weights) break;
    kept.insert(*name);
    fair[*name] = demand[*name];
    total -= demand[*name];
    weights -= tenants_.at(*name).weight;
  }
  const double level = weights > 0 ? total / weights : 0;
  for (const auto& [name, t] : tenants_) {
    if ((share[name] > 0 || t.waiting > 0) && !kept.contains(name)) {
      fair[name] = level * t.weight;
    }
  }
}

void SimMetrics::Advance(absl::Time from, absl::Time to) {
  if (to <= from) return;
  whole_.Add(used_, absl::ToDoubleSeconds(to - from));
  if (from < last_arrival_) {
    steady_.Add(used_, absl::ToDoubleSeconds(std::min(to, last_arrival_) - from));
  }
  // Shares are constant over [from, to): work them out once.
  std::map<std::string, double> share, fair;
  FairShares(share, fair);
  while (from < to) {
    const absl::Time boundary = origin_ + config_.window * (window_index_ + 1);
    const absl::Time end = std::min(to, boundary);
    const double dt = absl::ToDoubleSeconds(end - from);
    for (auto& [name, t] : tenants_) {
      t.actual += share[name] * dt;
      t.fair += fair[name] * dt;
      t.total_actual += share[name] * dt;
      t.total_fair += fair[name] * dt;
    }
    if (end == boundary) {
      CloseWindow(boundary, absl::ToDoubleSeconds(config_.window));
      ++window_index_;
    }
    from = end;
  }
}

void SimMetrics::CloseWindow(absl::Time end, double seconds) {
  const bool steady = end <= last_arrival_;
  double sum = 0, squares = 0;
  int n = 0;
  for (auto& [name, t] : tenants_) {
    if (t.fair > 0) {
      const double x = t.actual / t.fair;
      sum += x;
      squares += x * x;
      ++n;
      const double gap = 100.0 * std::abs(t.actual - t.fair) / seconds;
      t.max_deviation_pct = std::max(t.max_deviation_pct, gap);
      max_deviation_pct_ = std::max(max_deviation_pct_, gap);
      if (steady) {
        t.max_steady_deviation_pct = std::max(t.max_steady_deviation_pct, gap);
        max_steady_deviation_pct_ = std::max(max_steady_deviation_pct_, gap);
      }
    }
    t.actual = t.fair = 0;
  }
  if (n > 0) {
    jain_sum_ += sum * sum / (n * squares);
    ++windows_;
  }
}

void SimMetrics::Finish(absl::Time end, SimResult& result) {
  // The last, partial window counts when it is at least half a window.
  const absl::Duration tail = end - (origin_ + config_.window * window_index_);
  if (tail >= config_.window / 2) CloseWindow(end, absl::ToDoubleSeconds(tail));
  result.makespan = end - origin_;
  const bool steady = last_arrival_ > origin_;
  const ResourceIntegral& used = steady ? steady_ : whole_;
  const double span = absl::ToDoubleSeconds((steady ? last_arrival_ : end) - origin_);
  const ResourceVector& c = config_.capacity;
  result.utilisation["cpu"] = Fraction(used.cpu, static_cast<double>(c.cpu_millis) * span);
  result.utilisation["memory"] = Fraction(used.memory, static_cast<double>(c.memory_bytes) * span);
  result.utilisation["gpu"] = Fraction(used.gpu, static_cast<double>(c.gpu_millis) * span);
  if (!jct_s_.empty()) {
    std::sort(jct_s_.begin(), jct_s_.end());
    double total = 0;
    for (double s : jct_s_) total += s;
    result.mean_jct_s = total / static_cast<double>(jct_s_.size());
    result.p95_jct_s = Percentile(jct_s_, 0.95);
  }
  result.jain = windows_ > 0 ? jain_sum_ / windows_ : 1;
  result.max_share_deviation_pct = max_deviation_pct_;
  result.max_steady_share_deviation_pct = max_steady_deviation_pct_;
  const double run = std::max(1e-9, absl::ToDoubleSeconds(result.makespan));
  for (const auto& [name, t] : tenants_) {
    result.tenants[name] = {t.weight, t.total_actual / run, t.total_fair / run, t.max_deviation_pct,
                            t.max_steady_deviation_pct};
  }
  if (!latency_.empty()) {
    std::sort(latency_.begin(), latency_.end());
    LatencyStats& l = result.latency;
    l.calls = static_cast<int>(latency_.size());
    l.p50_us = Percentile(latency_, 0.5).first;
    l.p99_us = Percentile(latency_, 0.99).first;
    l.pending_at_p99 = Percentile(latency_, 0.99).second;
    l.max_us = latency_.back().first;
    for (const auto& [us, pending] : latency_) l.max_pending = std::max(l.max_pending, pending);
    std::sort(cpu_us_.begin(), cpu_us_.end());
    l.cpu_p50_us = Percentile(cpu_us_, 0.5);
    l.cpu_p99_us = Percentile(cpu_us_, 0.99);
  }
}

}  // namespace dlp::server
