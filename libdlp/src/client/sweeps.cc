// The sweep functions of dlp/sweep.h: a backend with a SweepService (a dlpd)
// runs sweeps itself; on other backends they are foreground sweeps
// (sweep/foreground.h).
#include <cerrno>
#include <cstdio>
#include <cstring>

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

// A foreground sweep: cancelled here and waited for when forced; then each
// trial's job where the backend deletes jobs, then the state file.
absl::StatusOr<Sweep> DeleteForegroundSweep(Backend& backend, std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(Sweep sweep, internal::LoadForegroundSweep(id));
  if (SweepDriver::Active(sweep)) {
    if (!force) {
      return absl::FailedPreconditionError(
          absl::StrCat("sweep ", std::string(id), " is ", std::string(SweepStateName(sweep.state)),
                       " (trials not ended): cancel it first (dlp sweep cancel ", std::string(id),
                       "), or delete it with --force"));
    }
    std::unique_ptr<TrialHost> host = internal::BackendTrialHost(backend);
    std::unique_ptr<SweepSaver> saver = internal::ForegroundSaver();
    SweepDriver driver(*host, *saver);
    if (sweep.state == SweepState::kRunning) {
      DLP_RETURN_IF_ERROR(driver.Cancel(sweep, "sweep deleted"));
    }
    DLP_RETURN_IF_ERROR(driver.Step(sweep));  // sends the cancels
    for (const SweepTrial& t : sweep.trials) {
      if (t.job.empty()) continue;
      DLP_ASSIGN_OR_RETURN(Job job, backend.Wait(t.job, absl::Seconds(60)));
      if (!IsTerminal(job.state)) {
        return absl::FailedPreconditionError(
            absl::StrCat("sweep ", std::string(id), ": job ", t.job, " is still ",
                         std::string(JobStateName(job.state)),
                         " a minute after its cancel; delete it again once it has ended"));
      }
    }
  }
  for (const SweepTrial& t : sweep.trials) {
    if (t.job.empty()) continue;
    JobHistory* history = backend.history();
    if (history == nullptr) continue;  // the backend keeps its own history
    absl::Status deleted = history->Delete(t.job, /*force=*/false).status();
    if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
  }
  const std::string path = internal::ForegroundSweepPath(id);
  if (std::remove(path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot remove ", path, ": ", std::strerror(errno)));
  }
  return sweep;
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
  std::unique_ptr<TrialHost> host = internal::BackendTrialHost(client.backend());
  std::unique_ptr<SweepSaver> saver = internal::ForegroundSaver();
  SweepDriver driver(*host, *saver);
  DLP_RETURN_IF_ERROR(driver.Cancel(sweep, "sweep cancelled"));
  DLP_RETURN_IF_ERROR(driver.Step(sweep));  // sends the cancels
  return sweep;
}

absl::StatusOr<Sweep> DeleteSweep(const Client& client, std::string_view id, bool force) {
  if (internal::IsForegroundSweep(id)) return DeleteForegroundSweep(client.backend(), id, force);
  SweepService* service = client.backend().sweeps();
  if (service == nullptr) return NoSweeps(client.backend(), id);
  return service->DeleteSweep(id, force);
}

absl::StatusOr<Sweep> FollowSweep(const Client& client, std::string_view id,
                                  const SweepFollowOptions& options) {
  const bool foreground = internal::IsForegroundSweep(id);
  SweepService* service = client.backend().sweeps();
  if (!foreground && service == nullptr) return NoSweeps(client.backend(), id);
  std::unique_ptr<TrialHost> host = internal::BackendTrialHost(client.backend());
  std::unique_ptr<SweepSaver> saver = internal::ForegroundSaver();
  SweepDriver driver(*host, *saver);
  while (true) {
    absl::StatusOr<Sweep> sweep =
        foreground ? internal::LoadForegroundSweep(id) : service->GetSweep(id);
    if (!sweep.ok()) return sweep.status();
    if (foreground) DLP_RETURN_IF_ERROR(driver.Step(*sweep));
    if (options.on_update) options.on_update(*sweep);
    if (!SweepDriver::Active(*sweep)) return sweep;
    if (options.cancelled && options.cancelled()) {
      return absl::CancelledError(absl::StrCat("stopped following sweep ", std::string(id)));
    }
    absl::SleepFor(options.poll_interval);
  }
}

}  // namespace dlp
