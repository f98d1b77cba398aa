#include "server/api/routes.h"

#include <unistd.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "dlp/codec.h"
#include "dlp/version.h"
#include "server/api/monitor.h"
#include "server/api/ui_routes.h"
#include "server/http/query_params.h"
#include "server/ui/ui_cookies.h"

namespace dlp::server {
namespace {

constexpr double kMaxWaitSeconds = 60;

void SendJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body + "\n", kJson);
}

template <typename T, typename Render>
void Reply(httplib::Response& res, const absl::StatusOr<T>& result, int ok_status,
           Render render) {
  if (!result.ok()) return SendError(res, result.status());
  SendJson(res, ok_status, render(*result));
}

}  // namespace

int HttpStatusFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted: return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

std::string ErrorBody(const absl::Status& status) {
  nlohmann::json body = {{"error",
                          {{"code", absl::StatusCodeToString(status.code())},
                           {"message", std::string(status.message())}}}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void SendError(httplib::Response& res, const absl::Status& status) {
  res.status = HttpStatusFor(status);
  res.set_content(ErrorBody(status), kJson);
}

bool IsApiPath(absl::string_view path) {
  return absl::StartsWith(path, "/v1/") || path == "/metrics";
}

std::optional<Caller> Identify(const ApiContext& context, const httplib::Request& req) {
  if (std::optional<std::string> tenant =
          context.auth->Authenticate(req.get_header_value("Authorization"))) {
    return Caller{std::move(*tenant), false, ""};
  }
  if (context.ui_sessions == nullptr || !req.has_header("Cookie")) return std::nullopt;
  std::optional<UiSession> session =
      SessionFromCookies(*context.ui_sessions, *context.auth, req.get_header_value("Cookie"));
  if (!session) return std::nullopt;
  return Caller{session->identity.tenant, true, session->csrf};
}

std::string TenantOf(const ApiContext& context, const httplib::Request& req) {
  // '/' is in no tenant's name (ValidateTenantName).
  return Identify(context, req).value_or(Caller{"/signed-out", false, ""}).tenant;
}

void InstallRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.set_pre_routing_handler([&ctx](const httplib::Request& req, httplib::Response& res) {
    PreferGzip(req);
    // The web UI's pages and sign-in are open; what they show comes from /v1/.
    if (ctx.ui_sessions != nullptr && !IsApiPath(req.path)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (std::optional<Caller> caller = Identify(ctx, req)) {
      // A cookie goes with every request the browser makes, a header only
      // with those the UI's own script makes.
      if (caller->by_session && req.method != "GET" && req.method != "HEAD" &&
          !ConstantTimeEquals(req.get_header_value(kCsrfHeader), caller->csrf)) {
        SendError(res, absl::PermissionDeniedError(absl::StrCat(
                           "missing or wrong ", kCsrfHeader, " header (see GET /v1/ui/session)")));
        return httplib::Server::HandlerResponse::Handled;
      }
      if (caller->tenant.empty() || ctx.tenants_refused.empty()) {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      SendError(res, absl::PermissionDeniedError(absl::StrCat(
                         "this dlpd serves its owner only: ", ctx.tenants_refused)));
      return httplib::Server::HandlerResponse::Handled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    SendError(res, absl::UnauthenticatedError(
                       "missing or wrong bearer token (see dlpd.token in the state folder)"));
    return httplib::Server::HandlerResponse::Handled;
  });
  server.set_post_routing_handler(
      [](const httplib::Request&, httplib::Response& res) { SetSecurityHeaders(res); });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    absl::Status status =
        res.status == 404
            ? absl::NotFoundError(absl::StrCat("no endpoint ", req.method, " ", req.path))
            : absl::Status(absl::StatusCode::kUnknown, absl::StrCat("HTTP ", res.status));
    int code = res.status;
    SendError(res, status);
    res.status = code;
  });

  server.Get("/v1/health", [&ctx](const httplib::Request&, httplib::Response& res) {
    const ResourceVector& c = ctx.controller->capacity();
    nlohmann::json body = {{"ok", true},
                           {"version", Version()},
                           {"pid", static_cast<int64_t>(getpid())},
                           {"capacity",
                            {{"cpuMillis", c.cpu_millis},
                             {"memoryBytes", c.memory_bytes},
                             {"gpus", c.gpu_millis / 1000}}}};
    SendJson(res, 200, body.dump());
  });

  // The devices placed on and what running jobs hold of each (dlpd(8)).
  server.Get("/v1/gpus", [&ctx](const httplib::Request&, httplib::Response& res) {
    const std::map<std::string, int64_t> use = ctx.controller->GpuUse();
    nlohmann::json devices = nlohmann::json::array();
    for (const GpuDevice& d : ctx.controller->Devices()) {
      const auto used = use.find(d.id);
      devices.push_back({{"id", d.id},
                         {"uuid", d.uuid},
                         {"name", d.name},
                         {"flavour", d.flavour},
                         {"memoryBytes", d.memory_bytes},
                         {"usedMillis", used == use.end() ? 0 : used->second}});
    }
    SendJson(res, 200, nlohmann::json{{"devices", devices}}.dump());
  });

  server.Post("/v1/jobs", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const absl::Time start = absl::Now();
    absl::StatusOr<JobSpec> spec = JobSpecFromJson(req.body);
    if (!spec.ok()) return SendError(res, spec.status());
    absl::StatusOr<Job> job = ctx.controller->Submit(std::move(*spec), TenantOf(ctx, req));
    if (job.ok()) ObserveSubmitLatency(absl::Now() - start);
    Reply(res, job, 201, [](const Job& job) { return JobToJson(job); });
  });

  server.Get("/v1/jobs", [&ctx](const httplib::Request& req, httplib::Response& res) {
    ServeJobList(ctx, req, res);
  });

  server.Get(R"(/v1/jobs/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    Reply(res, ctx.controller->Get(req.matches[1], TenantOf(ctx, req)), 200,
          [](const Job& job) { return JobToJson(job); });
  });

  server.Post(R"(/v1/jobs/([^/]+)/cancel)",
              [&ctx](const httplib::Request& req, httplib::Response& res) {
                Reply(res, ctx.controller->Cancel(req.matches[1], TenantOf(ctx, req)), 200,
                      [](const Job& job) { return JobToJson(job); });
              });

  server.Delete(R"(/v1/jobs/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<ForcedDelete> forced = ForcedDeleteParam(ctx, req);
    if (!forced.ok()) return SendError(res, forced.status());
    Reply(res, ctx.controller->Delete(req.matches[1], TenantOf(ctx, req), forced->force), 200,
          [](const Job& job) { return JobToJson(job); });
  });

  server.Get(
      R"(/v1/jobs/([^/]+)/wait)", [&ctx](const httplib::Request& req, httplib::Response& res) {
        // Longer timeouts are accepted and held for kMaxWait (docs/api.md).
        absl::StatusOr<double> seconds = SecondsParam(req, "timeout", kMaxWaitSeconds, 86400);
        if (!seconds.ok()) return SendError(res, seconds.status());
        const std::string tenant = TenantOf(ctx, req);
        absl::StatusOr<LongRequests::Slot> slot = ctx.long_requests->Acquire(tenant, "wait");
        if (!slot.ok()) return SendError(res, slot.status());
        Reply(res,
              ctx.controller->Wait(req.matches[1], tenant,
                                   absl::Seconds(std::min(*seconds, kMaxWaitSeconds))),
              200, [](const Job& job) { return JobToJson(job); });
      });

  server.Get(R"(/v1/jobs/([^/]+)/events)",
             [&ctx](const httplib::Request& req, httplib::Response& res) {
               Reply(res, ctx.controller->Events(req.matches[1], TenantOf(ctx, req)), 200,
                     [](const std::vector<Event>& events) { return EventsToJson(events); });
             });

  server.Get(R"(/v1/jobs/([^/]+)/why)",
             [&ctx](const httplib::Request& req, httplib::Response& res) {
               Reply(res, ctx.controller->Why(req.matches[1], TenantOf(ctx, req)), 200,
                     [](const JobExplanation& why) { return ExplanationToJson(why); });
             });

  server.Get(R"(/v1/jobs/([^/]+)/logs)",
             [&ctx](const httplib::Request& req, httplib::Response& res) {
               ServeLogs(ctx, req, res);
             });

  server.Post("/v1/shutdown", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!TenantOf(ctx, req).empty()) {
      return SendError(res, absl::PermissionDeniedError("only the owner may stop dlpd"));
    }
    SendJson(res, 200, R"({"ok":true})");
    ctx.request_shutdown();
  });

  InstallMonitorRoutes(server, ctx);
  InstallProfileRoutes(server, ctx);
  InstallAdminRoutes(server, ctx);
  InstallQueueRoutes(server, ctx);
  if (ctx.sweeps != nullptr) InstallSweepRoutes(server, ctx);
  if (ctx.ui_sessions != nullptr) {
    InstallSignInRoutes(server, ctx);
    InstallStaticRoutes(server, ctx);
  }
  InstallArtifactRoutes(server, ctx);
  InstallModelRoutes(server, ctx);
  InstallPipelineRoutes(server, ctx);
}

}  // namespace dlp::server
