// What the per-tenant disk quota (controller/disk_quota.h) learns from, and
// does through, the rest of dlpd: a tenant's jobs and models, the tenants with
// running jobs, and stopping a tenant's running jobs.
#pragma once

#include <string>
#include <vector>

#include "server/controller/controller.h"
#include "server/controller/disk_quota.h"
#include "server/store/model_store.h"

namespace dlp::server {

// Both must outlive what is returned.
DiskQuota::Sources TenantDiskSources(Controller& controller, ModelStore& models);

// The tenants (not the owner) with a running job.
std::vector<std::string> TenantsRunning(Controller& controller);

// Stops each running job of `tenant`: it fails with `reason`.
void StopTenantJobs(Controller& controller, const std::string& tenant, const std::string& reason);

}  // namespace dlp::server
