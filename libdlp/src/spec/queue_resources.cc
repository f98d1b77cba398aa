// The text forms of a queue's quotas (dlp/queue.h): "cpu=8,memory=64Gi,gpu=4,
// gpu.h100=2" and priority ranges "-100..1000". Quantities go through the
// spec's own parsers, so a quota reads exactly as a job's resources do.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings/string_view_compat.h"
#include "dlp/queue.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {
namespace {

constexpr absl::string_view kExpected =
    "expected RESOURCE=QUANTITY,... with RESOURCE cpu, memory, gpu or gpu.FLAVOUR "
    "(e.g. cpu=8,memory=64Gi,gpu=4,gpu.h100=2)";

// A GPU flavour as FlavourOf spells a device name: lower-case letters,
// digits and '-' ("h100", "a100-80gb").
bool ValidFlavour(absl::string_view flavour) {
  if (flavour.empty() || flavour.size() > 64) return false;
  for (char c : flavour) {
    if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
        !absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '-') {
      return false;
    }
  }
  return true;
}

// "0.5" from 500 milli-units, "4" from 4000.
std::string FormatMillis(int64_t millis) {
  std::string out = absl::StrCat(millis / 1000);
  if (int64_t rest = millis % 1000; rest != 0) {
    std::string digits = absl::StrCat(rest + 1000).substr(1);
    while (digits.back() == '0') digits.pop_back();
    absl::StrAppend(&out, ".", digits);
  }
  return out;
}

}  // namespace

absl::StatusOr<QueueResources> ParseQueueResources(std::string_view std_text) {
  const absl::string_view text = base::ToAbsl(std_text);
  QueueResources out;
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(absl::StrCat("empty; ", kExpected));
  }
  std::set<std::string> seen;
  for (absl::string_view entry : absl::StrSplit(text, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("\"", entry, "\": ", kExpected));
    }
    const std::string name(absl::StripAsciiWhitespace(entry.substr(0, eq)));
    const std::string value(absl::StripAsciiWhitespace(entry.substr(eq + 1)));
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": given twice"));
    }
    auto fail = [&](const absl::Status& status) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": ", status.message()));
    };
    if (name == "cpu") {
      absl::StatusOr<int64_t> v = ParseCpuMillis(value);
      if (!v.ok()) return fail(v.status());
      out.cpu_millis = *v;
    } else if (name == "memory") {
      absl::StatusOr<int64_t> v = ParseMemoryBytes(value);
      if (!v.ok()) return fail(v.status());
      out.memory_bytes = *v;
    } else if (name == "gpu") {
      absl::StatusOr<int64_t> v = ParseGpuMillis(value);
      if (!v.ok()) return fail(v.status());
      if (*v < 0) return fail(absl::InvalidArgumentError("a quota must not be negative"));
      out.gpu_millis = *v;
    } else if (absl::StartsWith(name, "gpu.") && ValidFlavour(name.substr(4))) {
      absl::StatusOr<int64_t> v = ParseGpuMillis(value);
      if (!v.ok()) return fail(v.status());
      if (*v < 0) return fail(absl::InvalidArgumentError("a quota must not be negative"));
      out.gpu_flavours[name.substr(4)] = *v;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", name, "\" is not a resource; ", kExpected,
                       "; a FLAVOUR is lower-case letters, digits and '-'"));
    }
  }
  return out;
}

std::string FormatQueueResources(const QueueResources& r) {
  std::vector<std::string> parts;
  if (r.cpu_millis != 0) parts.push_back(absl::StrCat("cpu=", FormatMillis(r.cpu_millis)));
  if (r.memory_bytes != 0) {
    parts.push_back(absl::StrCat("memory=", FormatMemoryBytes(r.memory_bytes)));
  }
  if (r.gpu_millis != 0) parts.push_back(absl::StrCat("gpu=", FormatMillis(r.gpu_millis)));
  for (const auto& [flavour, millis] : r.gpu_flavours) {
    if (millis != 0) parts.push_back(absl::StrCat("gpu.", flavour, "=", FormatMillis(millis)));
  }
  return absl::StrJoin(parts, ",");
}

absl::StatusOr<std::pair<int, int>> ParsePriorityRange(std::string_view std_text) {
  const absl::string_view text = absl::StripAsciiWhitespace(base::ToAbsl(std_text));
  const size_t dots = text.find("..");
  int lo = 0, hi = 0;
  if (dots == absl::string_view::npos || !absl::SimpleAtoi(text.substr(0, dots), &lo) ||
      !absl::SimpleAtoi(text.substr(dots + 2), &hi)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\": expected MIN..MAX, e.g. -100..1000"));
  }
  if (lo > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\": the minimum ", lo, " is above the maximum ", hi));
  }
  return std::make_pair(lo, hi);
}

}  // namespace dlp
