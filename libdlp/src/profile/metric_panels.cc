// The panels of a metrics chart: one per metric, each holding, per job, its
// lowest-rank replica's series (the default, shared with the web UI's Metrics
// page), every replica's, or an aggregate of the replicas' values per step.
#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "dlp/profile.h"

namespace dlp {
namespace {

const std::pair<const char*, ReplicaSeries> kReplicaSeriesNames[] = {
    {"rank0", ReplicaSeries::kLowestRank}, {"each", ReplicaSeries::kEach},
    {"mean", ReplicaSeries::kMean},        {"min", ReplicaSeries::kMin},
    {"max", ReplicaSeries::kMax},
};

double X(const MetricPoint& p, absl::Time t0, bool by_time) {
  return by_time ? absl::ToDoubleSeconds(p.time - t0) : static_cast<double>(p.step);
}

// The replicas' values at each step, combined; x is the step's first point's.
Series Aggregate(const std::vector<const MetricPoint*>& points, ReplicaSeries which,
                 absl::Time t0, bool by_time) {
  struct Step {
    double x = 0, sum = 0, min = 0, max = 0;
    int count = 0;
  };
  std::map<int64_t, Step> steps;
  std::set<std::string> replicas;
  for (const MetricPoint* p : points) {
    replicas.insert(p->replica);
    Step& s = steps[p->step];
    if (s.count == 0) s.x = X(*p, t0, by_time), s.min = s.max = p->value;
    s.sum += p->value;
    s.min = std::min(s.min, p->value);
    s.max = std::max(s.max, p->value);
    ++s.count;
  }
  const char* what = which == ReplicaSeries::kMean  ? "mean"
                     : which == ReplicaSeries::kMin ? "min"
                                                    : "max";
  Series out;
  out.label = absl::StrCat(what, " of ", replicas.size(),
                           replicas.size() == 1 ? " replica" : " replicas");
  for (const auto& [step, s] : steps) {
    const double y = which == ReplicaSeries::kMean ? s.sum / s.count
                     : which == ReplicaSeries::kMin ? s.min
                                                    : s.max;
    out.points.push_back({s.x, y});
  }
  if (by_time) std::sort(out.points.begin(), out.points.end());
  return out;
}

// One job's series of metric `name`.
std::vector<Series> JobSeries(const std::vector<MetricPoint>& points, const std::string& name,
                              ReplicaSeries which, absl::Time t0, bool by_time) {
  std::vector<const MetricPoint*> mine;
  for (const MetricPoint& p : points) {
    if (p.name == name) mine.push_back(&p);
  }
  if (which != ReplicaSeries::kLowestRank && which != ReplicaSeries::kEach) {
    return {Aggregate(mine, which, t0, by_time)};
  }
  const std::string lowest = LowestRankReporting(points, name);
  std::map<std::string, Series> by_replica;
  for (const MetricPoint* p : mine) {
    if (which == ReplicaSeries::kLowestRank && p->replica != lowest) continue;
    Series& s = by_replica[p->replica];
    s.label = p->replica;
    s.points.push_back({X(*p, t0, by_time), p->value});
  }
  std::vector<Series> out;
  for (auto& [replica, s] : by_replica) out.push_back(std::move(s));
  return out;
}

}  // namespace

absl::StatusOr<ReplicaSeries> ParseReplicaSeries(std::string_view text) {
  for (const auto& [name, value] : kReplicaSeriesNames) {
    if (text == name) return value;
  }
  return absl::InvalidArgumentError(absl::StrCat("replica series \"", std::string(text),
                                                 "\": expected rank0, each, mean, min or max"));
}

std::vector<ChartPanel> MetricPanels(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs,
    ReplicaSeries which, bool by_time) {
  absl::Time t0 = absl::InfiniteFuture();
  std::set<std::string> names;
  for (const auto& [job, points] : runs) {
    for (const MetricPoint& p : points) t0 = std::min(t0, p.time), names.insert(p.name);
  }
  std::vector<ChartPanel> panels;
  for (const std::string& name : names) {
    ChartPanel panel;
    panel.y_label = name;
    for (const auto& [job, points] : runs) {
      for (Series& s : JobSeries(points, name, which, t0, by_time)) {
        if (s.points.empty()) continue;
        if (runs.size() > 1) s.label = absl::StrCat(job, "/", s.label);
        panel.series.push_back(std::move(s));
      }
    }
    panels.push_back(std::move(panel));
  }
  return panels;
}

}  // namespace dlp
