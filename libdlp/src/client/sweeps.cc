// Client's sweep calls: a dlpd runs sweeps itself; elsewhere they are
// foreground sweeps driven by FollowSweep (sweep/foreground.h).
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dlp/client.h"
#include "dlp/status.h"
#include "sweep/foreground.h"

namespace dlp {

absl::StatusOr<Sweep> Client::SubmitSweep(const SweepSpec& spec, bool foreground) {
  DLP_RETURN_IF_ERROR(ValidateSweepSpec(spec));
  if (!foreground) {
    absl::StatusOr<Sweep> sweep = backend_->SubmitSweep(spec);
    if (sweep.status().code() != absl::StatusCode::kUnimplemented) return sweep;
  }
  return internal::CreateForegroundSweep(spec);
}

absl::StatusOr<Sweep> Client::GetSweep(std::string_view id) {
  if (internal::IsForegroundSweep(id)) return internal::LoadForegroundSweep(id);
  return backend_->GetSweep(id);
}

absl::StatusOr<std::vector<Sweep>> Client::ListSweeps() {
  absl::StatusOr<std::vector<Sweep>> sweeps = backend_->ListSweeps();
  if (!sweeps.ok() && sweeps.status().code() != absl::StatusCode::kUnimplemented) {
    return sweeps.status();
  }
  std::vector<Sweep> out = sweeps.ok() ? std::move(*sweeps) : std::vector<Sweep>();
  for (Sweep& s : internal::ListForegroundSweeps()) out.push_back(std::move(s));
  return out;
}

absl::StatusOr<Sweep> Client::CancelSweep(std::string_view id) {
  if (!internal::IsForegroundSweep(id)) return backend_->CancelSweep(id);
  DLP_ASSIGN_OR_RETURN(Sweep sweep, internal::LoadForegroundSweep(id));
  std::unique_ptr<internal::TrialHost> host = internal::BackendTrialHost(*backend_);
  std::unique_ptr<internal::SweepSaver> saver = internal::ForegroundSaver();
  internal::SweepDriver driver(*host, *saver);
  DLP_RETURN_IF_ERROR(driver.Cancel(sweep, "sweep cancelled"));
  DLP_RETURN_IF_ERROR(driver.Step(sweep));  // sends the cancels
  return sweep;
}

absl::StatusOr<Sweep> Client::FollowSweep(std::string_view id,
                                          const SweepFollowOptions& options) {
  const bool foreground = internal::IsForegroundSweep(id);
  std::unique_ptr<internal::TrialHost> host = internal::BackendTrialHost(*backend_);
  std::unique_ptr<internal::SweepSaver> saver = internal::ForegroundSaver();
  internal::SweepDriver driver(*host, *saver);
  while (true) {
    DLP_ASSIGN_OR_RETURN(Sweep sweep, GetSweep(id));
    if (foreground) DLP_RETURN_IF_ERROR(driver.Step(sweep));
    if (options.on_update) options.on_update(sweep);
    if (!internal::SweepDriver::Active(sweep)) return sweep;
    if (options.cancelled && options.cancelled()) {
      return absl::CancelledError(absl::StrCat("stopped following sweep ", std::string(id)));
    }
    absl::SleepFor(options.poll_interval);
  }
}

}  // namespace dlp
