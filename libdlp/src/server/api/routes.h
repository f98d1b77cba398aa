// The HTTP API of docs/api.md on a cpp-httplib server.
#pragma once

#include <httplib.h>

#include <functional>

#include "absl/status/status.h"
#include "server/api/auth.h"
#include "server/api/long_requests.h"
#include "server/controller/controller.h"
#include "server/store/queue_store.h"

namespace dlp::server {

struct ApiContext {
  Controller* controller = nullptr;
  const Authenticator* auth = nullptr;
  TenantStore* tenants = nullptr;  // the /v1/admin endpoints' store
  // Why tenants' tokens are refused (dlpd lacks the privilege to run their jobs
  // as their accounts); empty in shared mode.
  std::string tenants_refused;
  LongRequests* long_requests = nullptr;  // waits and log follows
  // Called (from a request thread, after the response is queued) by
  // POST /v1/shutdown; must return quickly.
  std::function<void()> request_shutdown;
  QueueStore* queues = nullptr;  // the queues' store (/v1/admin/queues)
};

// Installs every endpoint, token checking and JSON errors on `server`.
// `context` must outlive the server.
void InstallRoutes(httplib::Server& server, const ApiContext& context);

// Helpers shared by the endpoint files.
int HttpStatusFor(const absl::Status& status);
void SendError(httplib::Response& res, const absl::Status& status);
// The JSON error body SendError sends (also written by the HTTP gate).
std::string ErrorBody(const absl::Status& status);
// The caller's tenant ("" for the owner); authentication already passed.
std::string TenantOf(const ApiContext& context, const httplib::Request& req);

// The owner's /v1/admin endpoints: tenants and tokens (admin_endpoints.cc).
void InstallAdminRoutes(httplib::Server& server, const ApiContext& context);

// /v1/admin/queues (owner) and /v1/queues (everyone): queue_endpoints.cc.
void InstallQueueRoutes(httplib::Server& server, const ApiContext& context);

// /v1/pipelines (pipeline_endpoints.cc).
void InstallPipelineRoutes(httplib::Server& server, const ApiContext& context);

// GET /v1/jobs/ID/logs (in logs_endpoint.cc).
void ServeLogs(const ApiContext& context, const httplib::Request& req, httplib::Response& res);

}  // namespace dlp::server
