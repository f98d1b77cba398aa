// Foreground sweeps (backends without dlpd): the driver runs in the `dlp`
// process over the Backend interface, and the sweep is saved after every
// step as one JSON file, DefaultStateDir()/sweeps/ID.json, written
// atomically, so a follow that was stopped goes on where it was.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/backend.h"
#include "dlp/sweep.h"
#include "dlp/sweep_driver.h"

namespace dlp::internal {

inline constexpr std::string_view kForegroundSweepPrefix = "local-";

bool IsForegroundSweep(std::string_view id);
// The state file of a foreground sweep.
std::string ForegroundSweepPath(std::string_view id);
// A new foreground sweep of `spec`, saved; its id is "local-" and the time in ms.
absl::StatusOr<Sweep> CreateForegroundSweep(const SweepSpec& spec);
// NotFound when there is no such state file.
absl::StatusOr<Sweep> LoadForegroundSweep(std::string_view id);
std::vector<Sweep> ListForegroundSweeps();

// Trials as jobs of `backend` (FindTrialJob lists by label where the backend
// can; where it cannot, a trial is taken as not submitted).
std::unique_ptr<TrialHost> BackendTrialHost(Backend& backend);
// Saves the whole sweep to its state file on every Save.
std::unique_ptr<SweepSaver> ForegroundSaver();

}  // namespace dlp::internal
