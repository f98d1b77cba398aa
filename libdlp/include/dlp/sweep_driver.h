// Drives a sweep's engine against the place its trials run: one
// Step reads what the trials' jobs did since the last (state changes and
// objective reports), feeds it to the engine, and carries out the engine's
// actions. dlpd's sweep controller and `dlp sweep submit --follow` (for
// backends without dlpd) both step sweeps through here.
//
// Crash safety: a trial is saved (Pending, with its values) before its job is
// submitted, and its job carries the sweep's and the trial's labels, so a
// driver restarted after a crash between the two finds the job by its labels
// instead of submitting it again (Recover). A stop is saved before the job is
// cancelled, and cancelled again after a restart. Nothing is lost or run twice.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/job.h"
#include "dlp/profile.h"
#include "dlp/sweep.h"

namespace dlp {

// Where a sweep's trials run (dlpd's controller, or a Client's backend).
class TrialHost {
 public:
  virtual ~TrialHost() = default;
  // Submits a trial's job; its id. InvalidArgument / PermissionDenied: the
  // trial can never run (it fails); other errors are retried next step.
  virtual absl::StatusOr<std::string> Submit(const JobSpec& spec) = 0;
  // The job of trial `number` of sweep `sweep_id`, found by its labels; empty
  // when there is none.
  virtual absl::StatusOr<std::string> FindTrialJob(const std::string& sweep_id, int number) = 0;
  virtual absl::StatusOr<Job> Get(const std::string& job) = 0;
  virtual absl::Status Cancel(const std::string& job, const std::string& reason) = 0;
  // The metric points of `job` written since the previous call for it (all of
  // them on the first call), in log order. `final`: the job has ended.
  virtual absl::StatusOr<std::vector<MetricPoint>> NewMetrics(const std::string& job,
                                                              bool final) = 0;
};

// Saves a sweep durably: its own row and the trials numbered in `trials`.
class SweepSaver {
 public:
  virtual ~SweepSaver() = default;
  virtual absl::Status Save(const Sweep& sweep, const std::set<int>& trials) = 0;
};

class SweepDriver {
 public:
  SweepDriver(TrialHost& host, SweepSaver& saver) : host_(host), saver_(saver) {}

  // One round over `sweep`; returns an error only when saving failed (the
  // sweep is then as it was saved last; the next Step carries on).
  absl::Status Step(Sweep& sweep);
  // Cancels the sweep (its active trials are stopped) and saves it.
  absl::Status Cancel(Sweep& sweep, const std::string& reason);
  // Whether the sweep has anything left to do (running, or trials to stop).
  static bool Active(const Sweep& sweep);

 private:
  // Reads trial `t`'s job: reports and state changes go to the engine;
  // trials to stop are added to `cancel`.
  void Poll(Sweep& sweep, SweepTrial& t, std::set<int>& changed);
  // Submits Pending trial `t` (after looking for its job when this driver
  // did not create it: a crash may have come after the submission).
  void Submit(Sweep& sweep, SweepTrial& t, std::set<int>& changed);
  // Trials from index `from` on were drawn by this driver.
  void Created(Sweep& sweep, size_t from, std::set<int>& changed);

  TrialHost& host_;
  SweepSaver& saver_;
  // "SWEEP/TRIAL" of the trials this driver created, and of the jobs it
  // cancelled: what a restarted driver must check or do again.
  std::set<std::string> created_;
  std::set<std::string> cancelled_;
};

}  // namespace dlp
