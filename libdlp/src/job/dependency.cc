#include "dlp/job_dependencies.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/strings/string_view_compat.h"
#include "spec/dependency_reason.h"

namespace dlp {

std::string_view DependencyConditionName(DependencyCondition condition) {
  switch (condition) {
    case DependencyCondition::kSucceeded:
      return "succeeded";
    case DependencyCondition::kFailed:
      return "failed";
    case DependencyCondition::kFinished:
      return "finished";
  }
  return "succeeded";
}

std::optional<DependencyCondition> ParseDependencyCondition(std::string_view name) {
  for (DependencyCondition c : {DependencyCondition::kSucceeded, DependencyCondition::kFailed,
                                DependencyCondition::kFinished}) {
    if (name == DependencyConditionName(c)) return c;
  }
  return std::nullopt;
}

namespace {

using internal::kDependencyReasonPrefix;

// "failed", "was cancelled", "succeeded": how a dependency ended, for reasons.
std::string Ended(JobState state) {
  if (state == JobState::kCancelled) return "was cancelled";
  return absl::AsciiStrToLower(base::ToAbsl(JobStateName(state)));
}

}  // namespace

DependencyVerdict ConditionVerdict(DependencyCondition condition, JobState state) {
  if (!IsTerminal(state)) return DependencyVerdict::kWaiting;
  const bool succeeded = state == JobState::kSucceeded;
  switch (condition) {
    case DependencyCondition::kSucceeded:
      return succeeded ? DependencyVerdict::kMet : DependencyVerdict::kNever;
    case DependencyCondition::kFailed:
      return succeeded ? DependencyVerdict::kNever : DependencyVerdict::kMet;
    case DependencyCondition::kFinished:
      return DependencyVerdict::kMet;
  }
  return DependencyVerdict::kNever;
}

DependencyCheck CheckDependencies(const JobSpec& spec, const JobStateOf& state_of) {
  DependencyCheck waiting;
  for (const JobDependency& d : spec.depends_on) {
    const std::optional<JobState> state = state_of(d.job);
    if (!state) {
      return {DependencyVerdict::kNever,
              absl::StrCat(kDependencyReasonPrefix, d.job, " not found")};
    }
    switch (ConditionVerdict(d.condition, *state)) {
      case DependencyVerdict::kNever:
        return {DependencyVerdict::kNever,
                absl::StrCat(kDependencyReasonPrefix, d.job, " ", Ended(*state),
                             d.condition == DependencyCondition::kFailed
                                 ? " (this job runs only if it fails)"
                                 : "")};
      case DependencyVerdict::kWaiting:
        if (waiting.verdict == DependencyVerdict::kMet) {
          waiting = {DependencyVerdict::kWaiting, absl::StrCat("waiting for job ", d.job, " (",
                                                               base::ToAbsl(JobStateName(*state)), ")")};
        }
        break;
      case DependencyVerdict::kMet:
        break;
    }
  }
  return waiting;
}

}  // namespace dlp
