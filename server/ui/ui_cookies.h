// The web UI's session cookie: how it is written, read back from a Cookie
// header and turned into a live session (docs/ui.md).
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/auth/auth.h"
#include "server/ui/ui_sessions.h"

namespace dlp::server {

inline constexpr char kSessionCookie[] = "dlp_session";
inline constexpr char kCsrfHeader[] = "X-CSRF-Token";

// The value of cookie `name` in a Cookie header, or "".
std::string CookieValue(absl::string_view cookie_header, absl::string_view name);

// A Set-Cookie value for session `id`: HttpOnly, SameSite=Strict, Path=/,
// Max-Age of `max_age` and Secure when served over HTTPS. An empty `id` and a
// zero `max_age` clear the cookie.
std::string SessionCookie(absl::string_view id, absl::Duration max_age, bool secure);

// The live session named by the Cookie header, provided the token it was made
// from still authenticates as the same tenant; nullopt otherwise.
std::optional<UiSession> SessionFromCookies(UiSessions& sessions, const Authenticator& auth,
                                            absl::string_view cookie_header);

}  // namespace dlp::server
