// Training metrics: "DLP_METRIC name=value step=N" lines in a job's logs,
// the step rates they imply, and the points as JSON and CSV.
#include <cmath>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "contract/metric_line.h"
#include "dlp/profile.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace

std::optional<MetricPoint> ParseMetricLine(std::string_view text) {
  std::optional<contract::MetricText> parsed = contract::ParseMetricText(text);
  if (!parsed) return std::nullopt;
  MetricPoint p;
  p.name = std::move(parsed->name);
  p.value = parsed->value;
  p.step = parsed->step;
  return p;
}

std::optional<MetricPoint> MetricFromLogLine(const LogLine& line) {
  if (line.stream != "stdout") return std::nullopt;
  std::optional<MetricPoint> p = ParseMetricLine(line.text);
  if (!p) return std::nullopt;
  p->replica = line.replica;
  p->time = line.time;
  return p;
}

bool IsMetricLine(const LogLine& line) { return MetricFromLogLine(line).has_value(); }

bool MetricFilterKeeps(const LogLine& line, bool metrics, bool metrics_only) {
  if (metrics && !metrics_only) return true;
  return IsMetricLine(line) == metrics_only;
}

std::map<std::string, StepRate> StepRatesFromLogs(const std::vector<LogLine>& lines) {
  // Per replica: (time, step) of each metric that names a step.
  std::map<std::string, std::vector<std::pair<absl::Time, int64_t>>> seen;
  for (const LogLine& line : lines) {
    std::optional<MetricPoint> p = MetricFromLogLine(line);
    if (p && p->step >= 0) seen[line.replica].push_back({line.time, p->step});
  }
  std::map<std::string, StepRate> out;
  for (const auto& [replica, points] : seen) {
    StepRate rate;
    const auto& [first_time, first_step] = points.front();
    const auto& [last_time, last_step] = points.back();
    rate.step = last_step;
    const double dt = absl::ToDoubleSeconds(last_time - first_time);
    if (last_step > first_step && dt > 0) rate.steps_per_s = (last_step - first_step) / dt;
    out[replica] = rate;
  }
  return out;
}

std::string MetricsToJson(const std::vector<MetricPoint>& points) {
  nlohmann::json arr = nlohmann::json::array();
  for (const MetricPoint& p : points) {
    nlohmann::json value = p.value;
    if (!std::isfinite(p.value)) value = nullptr;  // JSON has no NaN
    arr.push_back({{"replica", p.replica}, {"name", p.name}, {"value", value},
                   {"step", p.step}, {"time", Rfc3339(p.time)}});
  }
  return nlohmann::json({{"metrics", arr}}).dump(2);
}

std::string MetricsToCsv(const std::vector<MetricPoint>& points) {
  std::string out = "replica,name,step,value,time\n";
  for (const MetricPoint& p : points) {
    absl::StrAppend(&out, p.replica, ",", p.name, ",", p.step, ",", p.value, ",",
                    Rfc3339(p.time), "\n");
  }
  return out;
}

}  // namespace dlp
