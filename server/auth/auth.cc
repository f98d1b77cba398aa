#include "server/auth/auth.h"

#include <openssl/sha.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

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
    if (absl::Status valid = ValidateTenantName(parts[0]); !valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", number, ": ", valid.message()));
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

absl::StatusOr<std::string> NewSecretToken() {
  char bytes[32];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("getrandom: ", std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  return absl::BytesToHexString(absl::string_view(bytes, sizeof(bytes)));
}

std::string HashToken(absl::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

Authenticator::Authenticator(std::string owner_token, const TenantStore& tenants)
    : owner_hash_(owner_token.empty() ? "" : HashToken(owner_token)), store_(&tenants) {}

Authenticator::Authenticator(std::string owner_token, std::vector<TenantToken> tenants)
    : owner_hash_(owner_token.empty() ? "" : HashToken(owner_token)) {
  for (const TenantToken& t : tenants) fixed_.push_back({HashToken(t.token), t.tenant, {}});
}

std::optional<std::string> Authenticator::Authenticate(absl::string_view authorization) const {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ")) return std::nullopt;
  token = absl::StripAsciiWhitespace(token);
  if (token.empty()) return std::nullopt;
  return AuthenticateHash(HashToken(token));
}

std::optional<std::string> Authenticator::AuthenticateHash(absl::string_view hash) const {
  // Hashes are compared, so the time taken says nothing about any token; every
  // one is checked, so it does not say which one matched either.
  const absl::Time now = absl::Now();
  std::optional<std::string> tenant;
  if (!owner_hash_.empty() && ConstantTimeEquals(hash, owner_hash_)) tenant = "";
  auto check = [&](const std::vector<ValidToken>& tokens) {
    for (const ValidToken& t : tokens) {
      if (ConstantTimeEquals(hash, t.hash) && !tenant && (!t.expires || now < *t.expires)) {
        tenant = t.tenant;
      }
    }
  };
  check(fixed_);
  if (store_ != nullptr) {
    std::shared_ptr<const std::vector<ValidToken>> tokens = store_->ValidTokens();
    if (tokens) check(*tokens);
  }
  return tenant;
}

}  // namespace dlp::server
