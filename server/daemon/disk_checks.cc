#include "server/daemon/disk_checks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"

namespace dlp::server {

DiskQuota::Sources TenantDiskSources(Controller& controller, ModelStore& models,
                                     TenantStore& tenants) {
  DiskQuota::Sources sources;
  sources.job_ids = [&controller](const std::string& tenant) {
    std::vector<std::string> ids;
    absl::StatusOr<std::vector<Job>> jobs = controller.List(ListFilter{}, tenant, true);
    if (jobs.ok()) {
      for (const Job& job : *jobs) ids.push_back(job.id);
    }
    return ids;
  };
  sources.other_bytes = [&models](const std::string& tenant) {
    int64_t bytes = 0;
    absl::StatusOr<std::vector<StoredModel>> stored = models.List(tenant);
    if (stored.ok()) {
      for (const StoredModel& m : *stored) bytes += m.model.size;
    }
    return bytes;
  };
  sources.own_quota = [&tenants](const std::string& tenant) -> std::optional<int64_t> {
    absl::StatusOr<Tenant> t = tenants.GetTenant(tenant);
    return t.ok() ? t->disk_quota : std::nullopt;
  };
  return sources;
}

std::vector<std::string> TenantsRunning(Controller& controller) {
  std::vector<std::string> tenants;
  for (const SampledJob& running : controller.RunningJobs()) {
    if (running.job.tenant != kOwnerTenant) tenants.push_back(running.job.tenant);
  }
  return tenants;
}

void StopTenantJobs(Controller& controller, const std::string& tenant, const std::string& reason) {
  ListFilter running;
  running.state = JobState::kRunning;
  absl::StatusOr<std::vector<Job>> jobs = controller.List(running, tenant, true);
  if (!jobs.ok()) return;
  for (const Job& job : *jobs) {
    absl::StatusOr<Job> stopped = controller.Cancel(job.id, tenant, reason, JobState::kFailed);
    Log(absl::StrCat("job ", job.id, ": ",
                     stopped.ok() ? reason : std::string(stopped.status().message())));
  }
}

namespace {

// Every ended job that still may hold files, oldest first.
std::vector<EndedJob> EndedJobs(Controller& controller) {
  std::vector<EndedJob> ended;
  absl::StatusOr<std::vector<Job>> jobs = controller.List(ListFilter{}, "", true);
  if (!jobs.ok()) return ended;
  for (const Job& job : *jobs) {
    if (IsTerminal(job.state) && job.finished) ended.push_back({job.id, *job.finished});
  }
  std::stable_sort(ended.begin(), ended.end(),
                   [](const EndedJob& a, const EndedJob& b) { return a.finished < b.finished; });
  return ended;
}

}  // namespace

void CheckDisk(Controller& controller, DiskQuota& quota, const Retention& retention) {
  quota.Enforce([&controller] { return TenantsRunning(controller); },
                [&controller](const std::string& tenant, const std::string& reason) {
                  StopTenantJobs(controller, tenant, reason);
                });
  // Listing every job costs a moment's memory: only when there is retention.
  if (!retention.enabled()) return;
  const absl::Time now = absl::Now();
  for (const auto& [id, why] : retention.Prune(EndedJobs(controller), now)) {
    const std::string message = absl::StrCat("logs, traces and output removed: ", why);
    const absl::Status noted = controller.NoteEvent(id, {now, "FilesPruned", message});
    Log(absl::StrCat("job ", id, ": ", message,
                     noted.ok() ? "" : absl::StrCat(" (no event: ", noted.message(), ")")));
  }
}

}  // namespace dlp::server
