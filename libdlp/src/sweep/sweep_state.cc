// The names of sweep and trial states, as the JSON API and dlpd's store
// carry them.
#include <array>
#include <utility>

#include "dlp/sweep.h"

namespace dlp {
namespace {

constexpr std::array<std::pair<TrialState, std::string_view>, 6> kTrialStates = {{
    {TrialState::kPending, "Pending"},
    {TrialState::kQueued, "Queued"},
    {TrialState::kRunning, "Running"},
    {TrialState::kSucceeded, "Succeeded"},
    {TrialState::kFailed, "Failed"},
    {TrialState::kCancelled, "Cancelled"},
}};
constexpr std::array<std::pair<SweepState, std::string_view>, 4> kSweepStates = {{
    {SweepState::kRunning, "Running"},
    {SweepState::kSucceeded, "Succeeded"},
    {SweepState::kCancelled, "Cancelled"},
    {SweepState::kFailed, "Failed"},
}};

}  // namespace

std::string_view TrialStateName(TrialState state) { return NameIn(kTrialStates, state); }
std::optional<TrialState> ParseTrialState(std::string_view name) {
  return ValueIn(kTrialStates, name);
}
std::string_view SweepStateName(SweepState state) { return NameIn(kSweepStates, state); }
std::optional<SweepState> ParseSweepState(std::string_view name) {
  return ValueIn(kSweepStates, name);
}

TrialState TrialStateOf(JobState state) {
  // The job states are the trial's after Pending, by name.
  return ParseTrialState(JobStateName(state)).value_or(TrialState::kQueued);
}

}  // namespace dlp
