// The web UI's routes (docs/ui.md): the front end's files and SPA routes
// (static_routes.cc), sign-in with a one-time code or a token, sign-out, and
// /v1/ui/codes and /v1/ui/session (ui_routes.cc). Installed unless --no-ui.
#pragma once

#include <httplib.h>

#include "server/api/routes.h"

namespace dlp::server {

// The security headers every response carries (Content-Security-Policy, ...).
void SetSecurityHeaders(httplib::Response& res);

void InstallSignInRoutes(httplib::Server& server, const ApiContext& context);
// Last: it answers every GET that no other route took outside /v1/.
void InstallStaticRoutes(httplib::Server& server, const ApiContext& context);

}  // namespace dlp::server
