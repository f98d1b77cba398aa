// Names of the job model's enums, as they appear in specs, JSON and tables
// (frameworks and restart policies: the job contract's names), and a GPU
// placement's words.
#include "dlp/job.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/strings/string_view_compat.h"
#include "dlp/spec.h"

namespace dlp {

namespace {
constexpr std::pair<Tracing, std::string_view> kTracingNames[] = {
    {Tracing::kSampled, "sampled"}, {Tracing::kFull, "full"}, {Tracing::kOff, "off"}};
}  // namespace

std::string_view TracingName(Tracing tracing) {
  for (const auto& [value, name] : kTracingNames) {
    if (value == tracing) return name;
  }
  return "sampled";
}

std::optional<Tracing> ParseTracing(std::string_view name) {
  for (const auto& [value, text] : kTracingNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

namespace {
constexpr JobState kStates[] = {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                                JobState::kFailed, JobState::kCancelled};
}  // namespace

std::string_view JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "Queued";
    case JobState::kRunning:
      return "Running";
    case JobState::kSucceeded:
      return "Succeeded";
    case JobState::kFailed:
      return "Failed";
    case JobState::kCancelled:
      return "Cancelled";
  }
  return "Queued";
}

std::optional<JobState> ParseJobState(std::string_view name) {
  for (JobState state : kStates) {
    if (absl::EqualsIgnoreCase(base::ToAbsl(name), base::ToAbsl(JobStateName(state))))
      return state;
  }
  return std::nullopt;
}

std::string FormatGpuShares(const std::vector<GpuShare>& shares) {
  return absl::StrJoin(shares, ", ", [](std::string* out, const GpuShare& s) {
    absl::StrAppend(out, s.device);
    if (s.millis < 1000) absl::StrAppend(out, " (", FormatGpuMillis(s.millis), ")");
  });
}

bool IsTerminal(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

}  // namespace dlp
