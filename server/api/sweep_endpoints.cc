// /v1/sweeps (docs/api.md, "Sweeps"): submit, list, get, cancel and delete
// sweeps, scoped to the caller's tenant as jobs are.
#include <nlohmann/json.hpp>

#include "dlp/sweep.h"
#include "server/api/routes.h"
#include "server/controller/sweep_controller.h"

namespace dlp::server {
namespace {

void Send(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body + "\n", "application/json");
}

void Reply(httplib::Response& res, const absl::StatusOr<Sweep>& sweep, int status) {
  if (!sweep.ok()) return SendError(res, sweep.status());
  Send(res, status, SweepToJson(*sweep));
}

}  // namespace

void InstallSweepRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Post("/v1/sweeps", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<SweepSpec> spec = SweepSpecFromJson(req.body);
    if (!spec.ok()) return SendError(res, spec.status());
    Reply(res, ctx.sweeps->Submit(std::move(*spec), TenantOf(ctx, req)), 201);
  });
  server.Get("/v1/sweeps", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<std::vector<Sweep>> sweeps = ctx.sweeps->List(TenantOf(ctx, req));
    if (!sweeps.ok()) return SendError(res, sweeps.status());
    Send(res, 200, SweepsToJson(*sweeps));
  });
  server.Get(R"(/v1/sweeps/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    Reply(res, ctx.sweeps->Get(req.matches[1], TenantOf(ctx, req)), 200);
  });
  server.Post(R"(/v1/sweeps/([^/]+)/cancel)",
              [&ctx](const httplib::Request& req, httplib::Response& res) {
                Reply(res, ctx.sweeps->Cancel(req.matches[1], TenantOf(ctx, req)), 200);
              });
  server.Delete(R"(/v1/sweeps/([^/]+))",
                [&ctx](const httplib::Request& req, httplib::Response& res) {
                  absl::StatusOr<ForcedDelete> forced = ForcedDeleteParam(ctx, req);
                  if (!forced.ok()) return SendError(res, forced.status());
                  Reply(res, ctx.sweeps->Delete(req.matches[1], TenantOf(ctx, req), forced->force),
                        200);
                });
}

}  // namespace dlp::server
