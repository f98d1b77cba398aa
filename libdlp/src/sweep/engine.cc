#include "sweep/engine.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sweep/sampling.h"

namespace dlp::internal {
namespace {

SweepTrial* Find(Sweep& sweep, int number) {
  if (number < 1 || static_cast<size_t>(number) > sweep.trials.size()) return nullptr;
  return &sweep.trials[static_cast<size_t>(number) - 1];
}

std::string Shown(double v) { return absl::StrFormat("%.4g", v); }

// Whether `a` is strictly worse than `b` for the objective.
bool Worse(const ObjectiveSpec& objective, double a, double b) {
  return objective.maximize ? a < b : a > b;
}

// The ASHA decision for `trial` at `rung`; empty when it is promoted.
std::string RungVerdict(const Sweep& sweep, const SweepTrial& trial, int64_t rung) {
  std::vector<double> values;
  for (const SweepTrial& t : sweep.trials) {
    auto it = t.rungs.find(rung);
    if (it != t.rungs.end()) values.push_back(it->second);
  }
  const int eta = sweep.spec.search.reduction_factor;
  if (static_cast<int>(values.size()) < eta) return "";
  const ObjectiveSpec& objective = sweep.spec.objective;
  std::sort(values.begin(), values.end(),
            [&](double a, double b) { return Worse(objective, b, a); });  // best first
  const size_t keep = std::max<size_t>(1, values.size() / static_cast<size_t>(eta));
  const double cutoff = values[keep - 1];
  const double value = trial.rungs.at(rung);
  if (!Worse(objective, value, cutoff)) return "";
  return absl::StrCat("stopped early by asha at ", sweep.spec.search.resource, " ", rung, " (",
                      Shown(value), objective.maximize ? " < " : " > ", "rung cutoff ",
                      Shown(cutoff), ")");
}

}  // namespace

bool TrialActive(const SweepTrial& trial) {
  return trial.state == TrialState::kPending || trial.state == TrialState::kQueued ||
         trial.state == TrialState::kRunning;
}

std::vector<int64_t> Rungs(const SearchSpec& search) {
  std::vector<int64_t> rungs;
  if (search.algorithm != SearchAlgorithm::kAsha || search.reduction_factor < 2) return rungs;
  for (int64_t r = std::max(1, search.min_resource); r < search.max_resource;
       r *= search.reduction_factor) {
    rungs.push_back(r);
  }
  return rungs;
}

std::vector<SweepAction> NextTrials(Sweep& sweep) {
  std::vector<SweepAction> actions;
  if (sweep.state != SweepState::kRunning) return actions;
  int active = 0;
  for (const SweepTrial& t : sweep.trials) active += TrialActive(t) ? 1 : 0;
  const int total = TotalTrials(sweep.spec);
  while (active < sweep.spec.parallelism && static_cast<int>(sweep.trials.size()) < total) {
    SweepTrial trial;
    trial.number = static_cast<int>(sweep.trials.size()) + 1;
    trial.params = SampleTrial(sweep.spec, trial.number);
    sweep.trials.push_back(std::move(trial));
    actions.push_back({SweepAction::Kind::kStart, sweep.trials.back().number, ""});
    ++active;
  }
  if (active == 0 && static_cast<int>(sweep.trials.size()) >= total) {
    sweep.state = SweepState::kSucceeded;
    sweep.reason = absl::StrCat(sweep.trials.size(), " trial(s) ended");
    actions.push_back({SweepAction::Kind::kDone, 0, sweep.reason});
  }
  return actions;
}

std::vector<SweepAction> OnReport(Sweep& sweep, int number, int64_t resource, double value) {
  SweepTrial* trial = Find(sweep, number);
  if (trial == nullptr || !TrialActive(*trial)) return {};
  if (trial->objective && resource <= trial->resource) return {};
  const int64_t previous = trial->objective ? trial->resource : 0;
  trial->objective = value;
  trial->resource = resource;
  // Once stopped, the job's values are only kept: it may end on its own
  // before the stop reaches it, and then its last value is its objective.
  if (trial->stop_requested) return {};
  for (int64_t rung : Rungs(sweep.spec.search)) {
    if (rung <= previous || rung > resource || trial->rungs.contains(rung)) continue;
    trial->rungs[rung] = value;
    std::string reason = RungVerdict(sweep, *trial, rung);
    if (reason.empty()) continue;
    trial->stop_requested = true;
    trial->stopped_at = rung;
    trial->reason = reason;
    return {{SweepAction::Kind::kStop, number, reason}};
  }
  return {};
}

void OnSubmitted(Sweep& sweep, int number, const std::string& job) {
  SweepTrial* trial = Find(sweep, number);
  if (trial == nullptr) return;
  trial->job = job;
  if (trial->state == TrialState::kPending) trial->state = TrialState::kQueued;
}

std::vector<SweepAction> OnJobState(Sweep& sweep, int number, JobState state,
                                    const std::string& reason) {
  SweepTrial* trial = Find(sweep, number);
  if (trial == nullptr || !TrialActive(*trial)) return NextTrials(sweep);
  if (IsTerminal(state) && trial->stop_requested && state != JobState::kSucceeded) {
    trial->state = TrialState::kCancelled;
    if (trial->stopped_at > 0) {  // ranked by what it had at the rung, as the others were
      trial->objective = trial->rungs.at(trial->stopped_at);
      trial->resource = trial->stopped_at;
    }
  } else if (state == JobState::kSucceeded && trial->stop_requested) {
    // It ended before the stop reached it: finished, with its last value.
    trial->state = TrialStateOf(state);
    trial->reason.clear();
    trial->stopped_at = 0;
  } else {
    trial->state = TrialStateOf(state);
    if (IsTerminal(state) && state != JobState::kSucceeded) trial->reason = reason;
  }
  return NextTrials(sweep);
}

std::vector<SweepAction> CancelSweep(Sweep& sweep, const std::string& reason) {
  std::vector<SweepAction> actions;
  if (sweep.state != SweepState::kRunning) return actions;
  sweep.state = SweepState::kCancelled;
  sweep.reason = reason;
  for (SweepTrial& t : sweep.trials) {
    if (!TrialActive(t) || t.stop_requested) continue;
    t.stop_requested = true;
    t.reason = reason;
    actions.push_back({SweepAction::Kind::kStop, t.number, reason});
  }
  actions.push_back({SweepAction::Kind::kDone, 0, reason});
  return actions;
}

}  // namespace dlp::internal

namespace dlp {

std::string TrialOutcome(const Sweep& sweep, const SweepTrial& trial) {
  if (trial.stopped_at > 0 && !internal::TrialActive(trial)) {
    const std::vector<int64_t> rungs = internal::Rungs(sweep.spec.search);
    const auto at = std::find(rungs.begin(), rungs.end(), trial.stopped_at);
    return absl::StrCat("stopped at rung ", at - rungs.begin() + 1, " (",
                        sweep.spec.search.resource, " ", trial.stopped_at, ")");
  }
  if (trial.state == TrialState::kSucceeded) return "finished";
  if (internal::TrialActive(trial)) {
    if (trial.stopped_at > 0) return "stopping";
    return absl::AsciiStrToLower(std::string(TrialStateName(trial.state)));
  }
  const std::string state = absl::AsciiStrToLower(std::string(TrialStateName(trial.state)));
  return trial.reason.empty() ? state : absl::StrCat(state, ": ", trial.reason);
}

}  // namespace dlp
