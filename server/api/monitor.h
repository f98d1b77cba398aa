// Monitoring endpoints: GET /v1/jobs/ID/usage and the Prometheus exposition on
// GET /metrics; a job's traces and profile (docs/profiling.md).
#pragma once

#include <httplib.h>

#include "absl/time/time.h"
#include "server/api/routes.h"

namespace dlp::server {

// Installs the endpoints and starts the usage sampler, which lives as long as
// the handlers (they own it), so it stops when `server` is destroyed.
void InstallMonitorRoutes(httplib::Server& server, const ApiContext& context);

// GET /v1/jobs/ID/traces, /profile and /profile/trace (profile_endpoints.cc).
void InstallProfileRoutes(httplib::Server& server, const ApiContext& context);

// Records how long an accepted POST /v1/jobs took (for the latency histogram).
void ObserveSubmitLatency(absl::Duration latency);

// The Prometheus text for the jobs visible to `tenant` (exposed for tests).
std::string PrometheusText(const ApiContext& context, const std::string& tenant,
                           const std::map<std::string, std::vector<ReplicaUsage>>& usage);

}  // namespace dlp::server
