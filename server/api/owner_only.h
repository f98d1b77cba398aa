// The owner-only handlers of /v1/admin (admin_endpoints.cc, queue_endpoints.cc).
#pragma once

#include <httplib.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/api/routes.h"

namespace dlp::server {

// OK for the owner; PermissionDenied naming the caller's tenant otherwise.
absl::Status RequireOwner(const ApiContext& ctx, const httplib::Request& req);

// Sends `body` (JSON) with `status` and a trailing newline.
void SendAdminJson(httplib::Response& res, int status, const std::string& body);

// Runs `body` for the owner and sends its JSON with `ok_status`, or the error.
// Unavailable when this dlpd keeps no tenants (no admin store).
template <typename Body>
httplib::Server::Handler OwnerOnly(const ApiContext& ctx, int ok_status, Body body) {
  return [&ctx, ok_status, body](const httplib::Request& req, httplib::Response& res) {
    if (absl::Status owner = RequireOwner(ctx, req); !owner.ok()) return SendError(res, owner);
    if (ctx.tenants == nullptr || ctx.queues == nullptr) {
      return SendError(res, absl::UnavailableError("this dlpd keeps no tenants or queues"));
    }
    absl::StatusOr<std::string> reply = body(req);
    if (!reply.ok()) return SendError(res, reply.status());
    SendAdminJson(res, ok_status, *reply);
  };
}

}  // namespace dlp::server
