// Runs side by side (dlp metrics --compare): each metric's final and best value
// per run.
#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "dlp/profile.h"
#include "nlohmann/json.hpp"
#include "spec/rules.h"

namespace dlp {

MetricGoal GuessMetricGoal(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  for (const char* word : {"loss", "err", "perplexity", "time"}) {
    if (absl::StrContains(lower, word)) return MetricGoal::kMinimize;
  }
  return MetricGoal::kMaximize;
}

namespace {

// Where a replica comes in rank order: (its role's place in kRoles, its index).
std::pair<size_t, int64_t> RankKey(std::string_view replica) {
  const size_t dash = replica.rfind('-');
  const absl::string_view role(replica.data(), std::min(dash, replica.size()));
  int64_t index = 0;
  if (dash == std::string_view::npos ||
      !absl::SimpleAtoi(absl::string_view(replica.data() + dash + 1, replica.size() - dash - 1),
                        &index)) {
    index = 0;
  }
  const auto* at = std::find(internal::kRoles.begin(), internal::kRoles.end(), role);
  return {static_cast<size_t>(at - internal::kRoles.begin()), index};
}

}  // namespace

std::string LowestRankReporting(const std::vector<MetricPoint>& points, std::string_view name) {
  const MetricPoint* lowest = nullptr;
  for (const MetricPoint& p : points) {
    if (p.name != name) continue;
    if (lowest == nullptr || RankKey(p.replica) < RankKey(lowest->replica)) lowest = &p;
  }
  return lowest == nullptr ? "" : lowest->replica;
}

std::vector<MetricComparison> CompareRuns(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs) {
  std::map<std::string, MetricComparison> by_name;
  for (const auto& [run, points] : runs) {
    std::map<std::string, std::string> reporter;  // metric -> its lowest-rank replica
    for (const MetricPoint& p : points) {
      auto [known, added] = reporter.try_emplace(p.name);
      if (added) known->second = LowestRankReporting(points, p.name);
      if (p.replica != known->second) continue;
      MetricComparison& c = by_name[p.name];
      c.name = p.name;
      c.goal = GuessMetricGoal(p.name);
      RunMetric& r = c.runs[run];
      const bool better =
          r.points == 0 || (c.goal == MetricGoal::kMinimize ? p.value < r.best : p.value > r.best);
      if (better) {
        r.best = p.value;
        r.best_step = p.step;
      }
      r.final_value = p.value;
      r.final_step = p.step;
      ++r.points;
    }
  }
  std::vector<MetricComparison> out;
  for (auto& [name, c] : by_name) out.push_back(std::move(c));
  return out;
}

std::string ComparisonToJson(const std::vector<std::string>& jobs,
                             const std::vector<MetricComparison>& metrics) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MetricComparison& c : metrics) {
    nlohmann::ordered_json runs = nlohmann::ordered_json::object();
    for (const std::string& job : jobs) {
      auto it = c.runs.find(job);
      if (it == c.runs.end()) continue;
      const RunMetric& r = it->second;
      runs[job] = {{"points", r.points},
                   {"final", r.final_value},
                   {"finalStep", r.final_step},
                   {"best", r.best},
                   {"bestStep", r.best_step}};
    }
    list.push_back({{"name", c.name},
                    {"goal", c.goal == MetricGoal::kMinimize ? "min" : "max"},
                    {"runs", runs}});
  }
  return nlohmann::ordered_json{{"jobs", jobs}, {"metrics", list}}.dump(
      2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace dlp
