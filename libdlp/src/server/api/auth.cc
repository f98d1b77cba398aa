#include "server/api/auth.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

namespace dlp::server {

absl::StatusOr<std::vector<TenantToken>> LoadTenantTokens(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read tokens file ", path));
  std::vector<TenantToken> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    std::vector<absl::string_view> parts = absl::StrSplit(text, absl::ByAnyChar(" \t"),
                                                         absl::SkipEmpty());
    if (parts.size() != 2 || parts[1].size() < 16) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number, ": expected \"TENANT TOKEN\" (a token of at least 16 characters)"));
    }
    out.push_back({std::string(parts[0]), std::string(parts[1])});
  }
  return out;
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

std::optional<std::string> Authenticator::Authenticate(absl::string_view authorization) const {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ")) return std::nullopt;
  token = absl::StripAsciiWhitespace(token);
  if (token.empty()) return std::nullopt;
  // Check every token so that the time taken does not say which one matched.
  std::optional<std::string> tenant;
  if (!owner_token_.empty() && ConstantTimeEquals(token, owner_token_)) tenant = "";
  for (const TenantToken& t : tenants_) {
    if (ConstantTimeEquals(token, t.token) && !tenant) tenant = t.tenant;
  }
  return tenant;
}

}  // namespace dlp::server
