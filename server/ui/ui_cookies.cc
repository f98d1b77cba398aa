#include "server/ui/ui_cookies.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dlp::server {

std::string CookieValue(absl::string_view cookie_header, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(cookie_header, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    if (absl::ConsumePrefix(&pair, name) && absl::ConsumePrefix(&pair, "=")) {
      return std::string(pair);
    }
  }
  return "";
}

std::string SessionCookie(absl::string_view id, absl::Duration max_age, bool secure) {
  return absl::StrCat(kSessionCookie, "=", id, "; HttpOnly; SameSite=Strict; Path=/; Max-Age=",
                      absl::ToInt64Seconds(max_age), secure ? "; Secure" : "");
}

std::optional<UiSession> SessionFromCookies(UiSessions& sessions, const Authenticator& auth,
                                            absl::string_view cookie_header) {
  const std::string id = CookieValue(cookie_header, kSessionCookie);
  if (id.empty()) return std::nullopt;
  std::optional<UiSession> session = sessions.Find(id);
  if (!session) return std::nullopt;
  std::optional<std::string> tenant = auth.AuthenticateHash(session->identity.token_hash);
  if (!tenant || *tenant != session->identity.tenant) {
    sessions.End(id);
    return std::nullopt;
  }
  return session;
}

}  // namespace dlp::server
