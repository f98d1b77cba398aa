// The search of a sweep as a pure state machine over a Sweep: its inputs are
// what the trials' jobs report (objective values at a resource, and their
// ends), its outputs are actions for a driver to carry out (start a trial
// with these values, stop a trial with this reason, the sweep is done). It
// reads no clock and does no I/O, so dlpd and `dlp sweep submit --follow`
// drive the same code, and a sweep restored from its stored trials goes on
// exactly where it was.
//
// ASHA (asynchronous successive halving; Li et al., "A System for Massively
// Parallel Hyperparameter Tuning", MLSys 2020), in its stopping form: every
// trial is started for the whole budget (`${resource}` = max), and the rungs
// are the resources min·η^k below max. When a trial's objective first
// reaches rung r, it is compared with every value recorded at r so far (its
// own included): once there are at least η of them, a trial that is not in
// the top ⌊n/η⌋ is stopped, with the cutoff in its reason; the others are
// promoted to the next rung (they keep running). Decisions are never
// revisited, as the paper's asynchronous variant does.
#pragma once

#include <string>
#include <vector>

#include "dlp/job.h"
#include "dlp/sweep.h"

namespace dlp::internal {

struct SweepAction {
  enum class Kind { kStart, kStop, kDone };
  Kind kind = Kind::kStart;
  int trial = 0;       // kStart, kStop
  std::string reason;  // kStop; kDone: the sweep's outcome
};

// Trials that count against parallelism: not ended.
bool TrialActive(const SweepTrial& trial);

// Starts trials while fewer than `parallelism` are active and trials remain
// (each appended to sweep.trials as Pending, its values drawn); kDone once
// every trial ended. Nothing while the sweep is not Running.
std::vector<SweepAction> NextTrials(Sweep& sweep);

// Trial `number` reported `value` at `resource` (a step). Values at or below
// the resource already seen are ignored (a restarted driver reads the logs
// again). asha: may stop the trial at a rung; values after the stop are kept
// as the job's last, but decide nothing.
std::vector<SweepAction> OnReport(Sweep& sweep, int number, int64_t resource, double value);

// Trial `number`'s job was submitted as `job`.
void OnSubmitted(Sweep& sweep, int number, const std::string& job);
// The job's state changed (Queued/Running, or terminal with its reason). A
// trial stopped by the engine ends Cancelled with the engine's reason and its
// value at the rung (or Succeeded, without it and with its job's last value,
// when its job ended before the stop reached it).
// Then NextTrials.
std::vector<SweepAction> OnJobState(Sweep& sweep, int number, JobState state,
                                    const std::string& reason);

// Cancels the sweep: every active trial is stopped with `reason`.
std::vector<SweepAction> CancelSweep(Sweep& sweep, const std::string& reason);

// asha: the rungs (resources) of the spec, increasing.
std::vector<int64_t> Rungs(const SearchSpec& search);

}  // namespace dlp::internal
