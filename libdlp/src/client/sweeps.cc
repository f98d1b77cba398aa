// The sweep functions of dlp/sweep.h: a backend with a SweepService (a dlpd)
// runs sweeps itself; on other backends they are foreground sweeps
// (sweep/foreground.h).
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dlp/backend_capabilities.h"
#include "dlp/client.h"
#include "dlp/status.h"
#include "dlp/sweep.h"
#include "sweep/foreground.h"

namespace dlp {
namespace {

absl::Status NoSweeps(const Backend& backend, std::string_view id) {
  return absl::NotFoundError(absl::StrCat("no sweep ", std::string(id), " (the ", backend.Name(),
                                          " backend runs no sweeps; foreground sweeps have ids "
                                          "local-...)"));
}

}  // namespace

absl::StatusOr<Sweep> SubmitSweep(const Client& client, const SweepSpec& spec, bool foreground) {
  DLP_RETURN_IF_ERROR(ValidateSweepSpec(spec));
  SweepService* service = client.backend().sweeps();
  if (!foreground && service != nullptr) return service->SubmitSweep(spec);
  return internal::CreateForegroundSweep(spec);
}

absl::StatusOr<Sweep> GetSweep(const Client& client, std::string_view id) {
  if (internal::IsForegroundSweep(id)) return internal::LoadForegroundSweep(id);
  SweepService* service = client.backend().sweeps();
  if (service == nullptr) return NoSweeps(client.backend(), id);
  return service->GetSweep(id);
}

absl::StatusOr<std::vector<Sweep>> ListSweeps(const Client& client) {
  std::vector<Sweep> out;
  if (SweepService* service = client.backend().sweeps(); service != nullptr) {
    DLP_ASSIGN_OR_RETURN(out, service->ListSweeps());
  }
  for (Sweep& s : internal::ListForegroundSweeps()) out.push_back(std::move(s));
  return out;
}

absl::StatusOr<Sweep> CancelSweep(const Client& client, std::string_view id) {
  if (!internal::IsForegroundSweep(id)) {
    SweepService* service = client.backend().sweeps();
    if (service == nullptr) return NoSweeps(client.backend(), id);
    return service->CancelSweep(id);
  }
  DLP_ASSIGN_OR_RETURN(Sweep sweep, internal::LoadForegroundSweep(id));
  std::unique_ptr<internal::TrialHost> host = internal::BackendTrialHost(client.backend());
  std::unique_ptr<internal::SweepSaver> saver = internal::ForegroundSaver();
  internal::SweepDriver driver(*host, *saver);
  DLP_RETURN_IF_ERROR(driver.Cancel(sweep, "sweep cancelled"));
  DLP_RETURN_IF_ERROR(driver.Step(sweep));  // sends the cancels
  return sweep;
}

absl::StatusOr<Sweep> FollowSweep(const Client& client, std::string_view id,
                                  const SweepFollowOptions& options) {
  const bool foreground = internal::IsForegroundSweep(id);
  SweepService* service = client.backend().sweeps();
  if (!foreground && service == nullptr) return NoSweeps(client.backend(), id);
  std::unique_ptr<internal::TrialHost> host = internal::BackendTrialHost(client.backend());
  std::unique_ptr<internal::SweepSaver> saver = internal::ForegroundSaver();
  internal::SweepDriver driver(*host, *saver);
  while (true) {
    absl::StatusOr<Sweep> sweep =
        foreground ? internal::LoadForegroundSweep(id) : service->GetSweep(id);
    if (!sweep.ok()) return sweep.status();
    if (foreground) DLP_RETURN_IF_ERROR(driver.Step(*sweep));
    if (options.on_update) options.on_update(*sweep);
    if (!internal::SweepDriver::Active(*sweep)) return sweep;
    if (options.cancelled && options.cancelled()) {
      return absl::CancelledError(absl::StrCat("stopped following sweep ", std::string(id)));
    }
    absl::SleepFor(options.poll_interval);
  }
}

}  // namespace dlp
