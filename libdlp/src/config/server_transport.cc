// Refusing plain HTTP to other machines: a context's bearer token is a
// password, and http:// sends it readable by anyone on the path.
#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "dlp/config.h"

namespace dlp {
namespace {

constexpr char kOptIn[] = "allow-insecure-http";

// "http://HOST:PORT/..." -> "HOST" (IPv6 without its brackets).
std::string HostOf(absl::string_view url) {
  url.remove_prefix(absl::string_view("http://").size());
  url = url.substr(0, url.find('/'));
  if (const size_t at = url.rfind('@'); at != absl::string_view::npos) url.remove_prefix(at + 1);
  if (absl::StartsWith(url, "[")) return std::string(url.substr(1, url.find(']') - 1));
  return std::string(url.substr(0, url.rfind(':')));
}

bool IsLoopback(const std::string& host) {
  if (absl::EqualsIgnoreCase(host, "localhost")) return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool OptedIn(const Context& context) {
  const std::string value = absl::AsciiStrToLower(context.Field(kOptIn));
  return value == "true" || value == "yes" || value == "1" || value == "on";
}

}  // namespace

absl::Status CheckServerTransport(const Context& context) {
  const std::string url = context.Field("server");
  if (!absl::StartsWithIgnoreCase(url, "http://") || OptedIn(context)) return absl::OkStatus();
  const std::string host = HostOf(url);
  if (IsLoopback(host)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "context '", context.name, "': server ", url,
      " is plain HTTP to another machine, which would send the bearer token in clear; use "
      "https:// (dlpd --tls-cert/--tls-key), or accept the risk with "
      "'dlp config set-context ",
      context.name, " --allow-insecure-http'"));
}

}  // namespace dlp
