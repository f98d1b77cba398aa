#include "dlp/sweep_driver.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sweep/engine.h"

namespace dlp {
namespace {

using internal::CancelSweep;
using internal::NextTrials;
using internal::OnJobState;
using internal::OnReport;
using internal::OnSubmitted;
using internal::SweepAction;
using internal::TrialActive;

std::string Key(const Sweep& sweep, int trial) { return absl::StrCat(sweep.id, "/", trial); }

// Submission errors after which the trial can never run.
bool Permanent(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument ||
         status.code() == absl::StatusCode::kPermissionDenied ||
         status.code() == absl::StatusCode::kFailedPrecondition ||
         status.code() == absl::StatusCode::kNotFound;
}

void Finish(Sweep& sweep) {
  if (sweep.state != SweepState::kRunning && !sweep.finished) sweep.finished = absl::Now();
}

}  // namespace

bool SweepDriver::Active(const Sweep& sweep) {
  if (sweep.state == SweepState::kRunning) return true;
  for (const SweepTrial& t : sweep.trials) {
    if (TrialActive(t)) return true;
  }
  return false;
}

void SweepDriver::Poll(Sweep& sweep, SweepTrial& t, std::set<int>& changed) {
  // The engine may append trials, which moves `t`: only `number` after it.
  const int number = t.number;
  absl::StatusOr<Job> job = host_.Get(t.job);
  if (!job.ok()) {
    if (job.status().code() == absl::StatusCode::kNotFound) {
      OnJobState(sweep, number, JobState::kFailed,
                 absl::StrCat("its job ", t.job, " no longer exists"));
      changed.insert(number);
    }
    return;  // else: unreachable for now, read again next step
  }
  const bool final = IsTerminal(job->state);
  if (job->state != JobState::kQueued) {
    absl::StatusOr<std::vector<MetricPoint>> points = host_.NewMetrics(t.job, final);
    if (points.ok()) {
      for (const MetricPoint& p : *points) {
        if (p.name != sweep.spec.objective.metric || p.step < 0) continue;
        const int64_t before = t.resource;
        OnReport(sweep, t.number, p.step, p.value);
        if (t.resource != before || t.stop_requested) changed.insert(t.number);
      }
    } else if (!final) {
      return;  // the logs are not readable yet: next step
    }
  }
  if (TrialStateOf(job->state) != t.state) {
    OnJobState(sweep, number, job->state, job->reason);
    changed.insert(number);
  }
}

void SweepDriver::Submit(Sweep& sweep, SweepTrial& t, std::set<int>& changed) {
  const int number = t.number;  // as in Poll
  const std::string key = Key(sweep, number);
  if (!created_.contains(key)) {
    absl::StatusOr<std::string> found = host_.FindTrialJob(sweep.id, t.number);
    if (!found.ok()) return;  // next step
    created_.insert(key);
    if (!found->empty()) {
      OnSubmitted(sweep, t.number, *found);
      changed.insert(t.number);
      return;
    }
  }
  if (t.stop_requested) {  // stopped before its job was submitted
    OnJobState(sweep, number, JobState::kCancelled, t.reason);
    changed.insert(number);
    return;
  }
  absl::StatusOr<JobSpec> spec = TrialJobSpec(sweep.spec, sweep.id, t.number, t.params);
  absl::StatusOr<std::string> job =
      spec.ok() ? host_.Submit(*spec) : absl::StatusOr<std::string>(spec.status());
  if (job.ok()) {
    OnSubmitted(sweep, t.number, *job);
  } else if (Permanent(job.status())) {
    OnJobState(sweep, number, JobState::kFailed,
               absl::StrCat("cannot submit: ", job.status().message()));
  } else {
    return;  // retried next step
  }
  changed.insert(number);
}

void SweepDriver::Created(Sweep& sweep, size_t from, std::set<int>& changed) {
  for (size_t i = from; i < sweep.trials.size(); ++i) {
    created_.insert(Key(sweep, sweep.trials[i].number));
    changed.insert(sweep.trials[i].number);
  }
}

absl::Status SweepDriver::Step(Sweep& sweep) {
  std::set<int> changed;
  const size_t known = sweep.trials.size();
  for (size_t i = 0; i < known; ++i) {
    SweepTrial& t = sweep.trials[i];
    if (TrialActive(t) && !t.job.empty()) Poll(sweep, t, changed);
  }
  NextTrials(sweep);
  Created(sweep, known, changed);
  Finish(sweep);
  // What the engine decided is durable before the world follows it.
  absl::Status saved = saver_.Save(sweep, changed);
  if (!saved.ok()) return saved;
  changed.clear();
  for (SweepTrial& t : sweep.trials) {
    if (!t.stop_requested || !TrialActive(t) || t.job.empty()) continue;
    if (cancelled_.insert(Key(sweep, t.number)).second) {
      if (!host_.Cancel(t.job, t.reason).ok()) cancelled_.erase(Key(sweep, t.number));
    }
  }
  const size_t pending = sweep.trials.size();
  for (size_t i = 0; i < pending; ++i) {
    if (sweep.trials[i].state == TrialState::kPending) Submit(sweep, sweep.trials[i], changed);
  }
  Created(sweep, pending, changed);  // after a failed submission: submitted next step
  Finish(sweep);
  if (changed.empty()) return absl::OkStatus();
  return saver_.Save(sweep, changed);
}

absl::Status SweepDriver::Cancel(Sweep& sweep, const std::string& reason) {
  std::set<int> changed;
  for (const SweepAction& a : CancelSweep(sweep, reason)) {
    if (a.kind == SweepAction::Kind::kStop) changed.insert(a.trial);
  }
  Finish(sweep);
  return saver_.Save(sweep, changed);
}

}  // namespace dlp
