// Sign-in for the web UI (docs/ui.md): `dlp ui` trades its bearer token for a
// one-time code (POST /v1/ui/codes), the browser trades the code for a
// session cookie (GET /login?code=...), or posts a token to /login from the
// sign-in form. A token never travels in a URL; the code is single use and
// lives a minute, and the Referrer-Policy keeps it out of Referer headers.
#include "server/api/ui_routes.h"

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/http/query_params.h"
#include "server/store/tenant_store.h"
#include "server/ui/ui_cookies.h"
#include "server/ui/ui_pages.h"

namespace dlp::server {
namespace {

constexpr char kHtml[] = "text/html; charset=utf-8";

void SendPage(httplib::Response& res, int status, const std::string& page) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(page, kHtml);
}

// A form posted from another site is refused: browsers send Origin with every
// POST, and it must name this server (login CSRF).
bool SameOrigin(const httplib::Request& req) {
  if (!req.has_header("Origin")) return true;
  const std::string header = req.get_header_value("Origin");  // a copy: keep it alive
  absl::string_view origin = header;
  if (!absl::ConsumePrefix(&origin, "https://") && !absl::ConsumePrefix(&origin, "http://")) {
    return false;
  }
  return origin == req.get_header_value("Host");
}

// Starts a session for `who` and sends its cookie with a redirect to `/`.
void SignIn(const ApiContext& ctx, const UiIdentity& who, httplib::Response& res) {
  absl::StatusOr<NewUiSession> session = ctx.ui_sessions->CreateSession(who);
  if (!session.ok()) return SendPage(res, 500, SignInPage(session.status().message()));
  res.set_header("Set-Cookie",
                 SessionCookie(session->id, ctx.ui_sessions->options().session_ttl, ctx.https));
  res.set_header("Cache-Control", "no-store");
  res.set_redirect("/", 303);
}

// The identity a bearer token signs in as, or a page saying why not.
std::optional<UiIdentity> TokenIdentity(const ApiContext& ctx, const std::string& token,
                                        httplib::Response& res) {
  std::optional<std::string> tenant = ctx.auth->Authenticate("Bearer " + token);
  if (!tenant) {
    SendPage(res, 401, SignInPage("That token is unknown, revoked or expired."));
    return std::nullopt;
  }
  if (!tenant->empty() && !ctx.tenants_refused.empty()) {
    SendPage(res, 403,
             SignInPage(absl::StrCat("This dlpd serves its owner only: ", ctx.tenants_refused)));
    return std::nullopt;
  }
  return UiIdentity{*tenant, HashToken(std::string(absl::StripAsciiWhitespace(token)))};
}

}  // namespace

void SetSecurityHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; script-src 'self'; style-src 'self'; "
                 "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; "
                 "base-uri 'none'; form-action 'self'");
  res.set_header("X-Content-Type-Options", "nosniff");
  // same-origin, not no-referrer: under no-referrer a browser sends "Origin: null"
  // with the sign-in form, which SameOrigin must refuse.
  res.set_header("Referrer-Policy", "same-origin");
}

void InstallSignInRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Post("/v1/ui/codes", [&ctx](const httplib::Request& req, httplib::Response& res) {
    std::optional<std::string> tenant =
        ctx.auth->Authenticate(req.get_header_value("Authorization"));
    if (!tenant) {
      return SendError(
          res, absl::PermissionDeniedError("a sign-in code is made with a bearer token (dlp ui)"));
    }
    const std::string token(absl::StripAsciiWhitespace(
        absl::StripPrefix(req.get_header_value("Authorization"), "Bearer ")));
    absl::StatusOr<std::string> code = ctx.ui_sessions->CreateCode({*tenant, HashToken(token)});
    if (!code.ok()) return SendError(res, code.status());
    res.status = 201;
    res.set_header("Cache-Control", "no-store");
    res.set_content(nlohmann::json{{"code", *code},
                                   {"expiresInSeconds",
                                    absl::ToInt64Seconds(ctx.ui_sessions->options().code_ttl)}}
                            .dump() +
                        "\n",
                    "application/json");
  });

  server.Get("/v1/ui/session", [&ctx](const httplib::Request& req, httplib::Response& res) {
    std::optional<Caller> caller = Identify(ctx, req);
    if (!caller || !caller->by_session) {
      return SendError(res, absl::UnauthenticatedError("no web UI session (sign in at /login)"));
    }
    res.set_header("Cache-Control", "no-store");
    res.set_content(
        nlohmann::json{{"tenant", caller->tenant.empty() ? kOwnerTenant : caller->tenant},
                       {"admin", caller->tenant.empty()},
                       {"csrf", caller->csrf}}
                .dump() +
            "\n",
        "application/json");
  });

  server.Get("/login", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string code = req.get_param_value("code");
    if (code.empty()) return SendPage(res, 200, SignInPage("Sign in to this dlpd."));
    std::optional<UiIdentity> who = ctx.ui_sessions->RedeemCode(code);
    if (!who) {
      return SendPage(res, 401, SignInPage("This sign-in link is unknown, used or expired."));
    }
    SignIn(ctx, *who, res);
  });

  server.Post("/login", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!SameOrigin(req)) return SendPage(res, 403, SignInPage("Sign in from this server's page."));
    std::optional<UiIdentity> who = TokenIdentity(ctx, FormField(req.body, "token"), res);
    if (who) SignIn(ctx, *who, res);
  });

  // The X-CSRF-Token header (fetch) or a csrf form field (a plain form).
  server.Post("/logout", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const bool form = !req.has_header(kCsrfHeader);
    const std::string csrf = form ? FormField(req.body, "csrf") : req.get_header_value(kCsrfHeader);
    const std::string id = CookieValue(req.get_header_value("Cookie"), kSessionCookie);
    if (std::optional<UiSession> session = ctx.ui_sessions->Find(id)) {
      if (!SameOrigin(req) || !ConstantTimeEquals(csrf, session->csrf)) {
        return SendError(res, absl::PermissionDeniedError("missing or wrong CSRF token"));
      }
      ctx.ui_sessions->End(id);
    }
    res.set_header("Set-Cookie", SessionCookie("", absl::ZeroDuration(), ctx.https));
    res.set_header("Cache-Control", "no-store");
    if (form) return res.set_redirect("/login", 303);
    res.status = 204;
  });
}

}  // namespace dlp::server
