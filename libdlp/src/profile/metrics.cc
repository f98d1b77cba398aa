// Training metrics: "DLP_METRIC name=value step=N" lines in a job's logs,
// the step rates they imply, and the points as JSON and CSV.
#include <cmath>
#include <cstdlib>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/string_view_compat.h"
#include "dlp/profile.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

constexpr std::string_view kPrefix = "DLP_METRIC ";

std::string_view NextWord(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  size_t end = s.find(' ');
  std::string_view word = s.substr(0, end);
  s.remove_prefix(end == std::string_view::npos ? s.size() : end);
  return word;
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace

std::optional<MetricPoint> ParseMetricLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  std::string_view pair = NextWord(text);
  size_t eq = pair.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  MetricPoint p;
  p.name = std::string(pair.substr(0, eq));
  if (!absl::SimpleAtod(internal::ToAbsl(pair.substr(eq + 1)), &p.value)) return std::nullopt;
  p.step = -1;
  std::string_view rest = NextWord(text);
  if (!rest.empty()) {
    if (rest.substr(0, 5) != "step=") return std::nullopt;
    if (!absl::SimpleAtoi(internal::ToAbsl(rest.substr(5)), &p.step)) return std::nullopt;
  }
  if (!NextWord(text).empty()) return std::nullopt;
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
