#include "contract/metric_line.h"

#include "absl/strings/numbers.h"

namespace dlp::contract {
namespace {

constexpr std::string_view kPrefix = "DLP_METRIC ";

std::string_view NextWord(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  size_t end = s.find(' ');
  std::string_view word = s.substr(0, end);
  s.remove_prefix(end == std::string_view::npos ? s.size() : end);
  return word;
}

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

std::optional<MetricText> ParseMetricText(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  std::string_view pair = NextWord(text);
  size_t eq = pair.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  MetricText p;
  p.name = std::string(pair.substr(0, eq));
  if (!absl::SimpleAtod(ToAbsl(pair.substr(eq + 1)), &p.value)) return std::nullopt;
  std::string_view rest = NextWord(text);
  if (!rest.empty()) {
    if (rest.substr(0, 5) != "step=") return std::nullopt;
    if (!absl::SimpleAtoi(ToAbsl(rest.substr(5)), &p.step)) return std::nullopt;
  }
  if (!NextWord(text).empty()) return std::nullopt;
  return p;
}

}  // namespace dlp::contract
