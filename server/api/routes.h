// The HTTP API of docs/api.md on a cpp-httplib server.
#pragma once

#include <httplib.h>

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "contract/output_folder.h"
#include "server/api/long_requests.h"
#include "server/api/metric_summaries.h"
#include "server/auth/auth.h"
#include "server/controller/controller.h"
#include "server/controller/disk_quota.h"
#include "server/controller/sweep_controller.h"
#include "server/models/model_registry.h"
#include "server/store/queue_store.h"
#include "server/ui/ui_assets.h"
#include "server/ui/ui_sessions.h"

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
  SweepController* sweeps = nullptr;  // /v1/sweeps
  // The web UI (docs/ui.md); both null under --no-ui.
  UiSessions* ui_sessions = nullptr;
  const UiAssets* ui_assets = nullptr;
  bool https = false;  // session cookies are Secure
  ModelRegistry* models = nullptr;  // /v1/models; null: no registry (404)
  MetricSummaries* metric_summaries = nullptr;  // the runs table's metric columns
  DiskQuota* disk_quota = nullptr;  // the quotas tenants are held to; null: none
};

// Who makes a request: a bearer token's tenant ("" for the owner), or the
// tenant of the web UI session named by its cookie (with that session's CSRF
// token, which every state-changing request must echo in X-CSRF-Token).
struct Caller {
  std::string tenant;
  bool by_session = false;
  std::string csrf;
};

// The caller, or nullopt when neither a token nor a session vouches for it.
std::optional<Caller> Identify(const ApiContext& context, const httplib::Request& req);

// Whether `path` (without its query) is the API's: /v1/... and the Prometheus
// /metrics, which need a token or a web UI session. Every other path is the
// web UI's (its files, its routes and its sign-in), open to anyone.
bool IsApiPath(absl::string_view path);

// Installs every endpoint, token checking and JSON errors on `server`.
// `context` must outlive the server.
void InstallRoutes(httplib::Server& server, const ApiContext& context);

// Helpers shared by the endpoint files.
inline constexpr char kJson[] = "application/json";  // the API's Content-Type
int HttpStatusFor(const absl::Status& status);
void SendError(httplib::Response& res, const absl::Status& status);
// The JSON error body SendError sends (also written by the HTTP gate).
std::string ErrorBody(const absl::Status& status);
// Takes "br" out of the request's Accept-Encoding, so that httplib
// compresses responses with gzip, not its slow brotli (response_encoding.cc).
// For the pre-routing handler only.
void PreferGzip(const httplib::Request& req);
// The caller's tenant ("" for the owner); authentication already passed. If
// the token or session ended since, a tenant name no job has, so that nothing
// is ever answered as if for the owner.
std::string TenantOf(const ApiContext& context, const httplib::Request& req);

// The owner's /v1/admin endpoints: tenants and tokens (admin_endpoints.cc).
void InstallAdminRoutes(httplib::Server& server, const ApiContext& context);

// /v1/admin/queues (owner) and /v1/queues (everyone): queue_endpoints.cc.
void InstallQueueRoutes(httplib::Server& server, const ApiContext& context);

// /v1/sweeps: sweep_endpoints.cc.
void InstallSweepRoutes(httplib::Server& server, const ApiContext& context);

// GET /v1/jobs (the list with its pagination; jobs_list_endpoint.cc).
void ServeJobList(const ApiContext& context, const httplib::Request& req, httplib::Response& res);

// GET /v1/jobs with columns, where, sort or offset: the runs table, within
// `base` (state, labels, queue; its limit and before are not used)
// (runs_endpoint.cc).
void ServeRuns(const ApiContext& context, const httplib::Request& req, httplib::Response& res,
               const ListFilter& base);

// GET /v1/jobs/ID/artifacts[/PATH] (artifact_endpoints.cc).
void InstallArtifactRoutes(httplib::Server& server, const ApiContext& context);
// Streams an open file as the response's body (`size` bytes, from offset 0),
// holding `slot` until it is sent.
void ServeFile(httplib::Response& res, contract::OwnedFd fd, int64_t size, LongRequests::Slot slot);

// The model registry's /v1/models (model_endpoints.cc).
void InstallModelRoutes(httplib::Server& server, const ApiContext& context);

// `?force=true` of DELETE /v1/pipelines/ID and /v1/sweeps/ID: the group is
// cancelled first and the request waits for its jobs to end, so a forced one
// holds one of the caller's long-request slots (429 when none is free).
struct ForcedDelete {
  bool force = false;
  LongRequests::Slot slot;  // held while the request waits
};
absl::StatusOr<ForcedDelete> ForcedDeleteParam(const ApiContext& context,
                                               const httplib::Request& req);

// /v1/pipelines (pipeline_endpoints.cc).
void InstallPipelineRoutes(httplib::Server& server, const ApiContext& context);

// GET /v1/jobs/ID/logs (in logs_endpoint.cc).
void ServeLogs(const ApiContext& context, const httplib::Request& req, httplib::Response& res);

}  // namespace dlp::server
