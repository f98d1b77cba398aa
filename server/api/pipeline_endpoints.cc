// /v1/pipelines (docs/api.md, "Pipelines"): submit, list, get, cancel and
// delete, each the caller's own (another tenant's pipeline is 404, as an
// unknown one).
#include "absl/strings/str_cat.h"
#include "dlp/pipeline.h"
#include "dlp/status.h"
#include "server/http/query_params.h"
#include "server/api/routes.h"

namespace dlp::server {
namespace {

void Send(httplib::Response& res, const absl::StatusOr<Pipeline>& pipeline, int status) {
  if (!pipeline.ok()) return SendError(res, pipeline.status());
  res.status = status;
  res.set_content(PipelineToJson(*pipeline) + "\n", kJson);
}

}  // namespace

absl::StatusOr<ForcedDelete> ForcedDeleteParam(const ApiContext& ctx, const httplib::Request& req) {
  ForcedDelete out;
  DLP_ASSIGN_OR_RETURN(out.force, BoolParam(req, "force", false));
  if (out.force) {
    DLP_ASSIGN_OR_RETURN(out.slot, ctx.long_requests->Acquire(TenantOf(ctx, req), "forced delete"));
  }
  return out;
}

void InstallPipelineRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Post("/v1/pipelines", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<PipelineSpec> spec = PipelineSpecFromJson(req.body);
    if (!spec.ok()) return SendError(res, spec.status());
    Send(res, ctx.controller->SubmitPipeline(std::move(*spec), TenantOf(ctx, req)), 201);
  });

  server.Get("/v1/pipelines", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<std::vector<Pipeline>> list = ctx.controller->ListPipelines(TenantOf(ctx, req));
    if (!list.ok()) return SendError(res, list.status());
    res.status = 200;
    res.set_content(PipelinesToJson(*list) + "\n", kJson);
  });

  server.Get(R"(/v1/pipelines/([^/]+))",
             [&ctx](const httplib::Request& req, httplib::Response& res) {
               Send(res, ctx.controller->GetPipeline(req.matches[1], TenantOf(ctx, req)), 200);
             });

  server.Post(R"(/v1/pipelines/([^/]+)/cancel)",
              [&ctx](const httplib::Request& req, httplib::Response& res) {
                Send(res, ctx.controller->CancelPipeline(req.matches[1], TenantOf(ctx, req)), 200);
              });

  server.Delete(R"(/v1/pipelines/([^/]+))",
                [&ctx](const httplib::Request& req, httplib::Response& res) {
                  absl::StatusOr<ForcedDelete> forced = ForcedDeleteParam(ctx, req);
                  if (!forced.ok()) return SendError(res, forced.status());
                  Send(res,
                       ctx.controller->DeletePipeline(req.matches[1], TenantOf(ctx, req),
                                                      forced->force),
                       200);
                });
}

}  // namespace dlp::server
