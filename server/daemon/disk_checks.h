// dlpd's disk checks, run every --disk-check-interval: the per-tenant disk
// quota (controller/disk_quota.h) and the retention of ended jobs' files
// (controller/retention.h), and what they learn from and do through the rest
// of dlpd: a tenant's jobs and models, stopping its running jobs, the ended
// jobs, an event on each pruned one.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server/controller/controller.h"
#include "server/controller/disk_quota.h"
#include "server/controller/retention.h"
#include "server/store/model_store.h"
#include "server/store/tenant_store.h"

namespace dlp::server {

// How often dlpd checks running tenants' quotas and prunes ended jobs' files.
inline constexpr absl::Duration kDefaultDiskCheckInterval = absl::Seconds(30);

// All must outlive what is returned.
DiskQuota::Sources TenantDiskSources(Controller& controller, ModelStore& models,
                                     TenantStore& tenants);

// The tenants (not the owner) with a running job.
std::vector<std::string> TenantsRunning(Controller& controller);

// Stops each running job of `tenant`: it fails with `reason`.
void StopTenantJobs(Controller& controller, const std::string& tenant, const std::string& reason);

// One round: the quota of each tenant with a running job, then retention.
void CheckDisk(Controller& controller, DiskQuota& quota, const Retention& retention);

}  // namespace dlp::server
