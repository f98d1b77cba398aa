// Bearer-token authentication for the API: the owner's token (dlpd.token) and
// the tenants' tokens, kept as SHA-256 hashes in the TenantStore (created with
// `dlp admin token create`, or imported from `--tokens FILE`).
// Thread-safe after setup: Authenticate may be called from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/store/tenant_store.h"

namespace dlp::server {

struct TenantToken {
  std::string tenant;
  std::string token;
};

// Lines "TENANT TOKEN"; blank lines and lines starting with '#' are skipped.
// InvalidArgument naming FILE:LINE for a malformed line or tenant name.
absl::StatusOr<std::vector<TenantToken>> LoadTenantTokens(const std::string& path);

// Compares in time that depends only on the lengths, not on where they differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// A fresh secret: 32 bytes from getrandom(2), as 64 hex digits.
absl::StatusOr<std::string> NewSecretToken();
// The SHA-256 of a token as 64 hex digits: the only form a store keeps.
std::string HashToken(absl::string_view token);

class Authenticator {
 public:
  // The owner's token, and tenants' tokens from `tenants` (which must outlive
  // this object).
  Authenticator(std::string owner_token, const TenantStore& tenants);
  // The owner's token and a fixed list of tenant tokens (no store).
  Authenticator(std::string owner_token, std::vector<TenantToken> tenants);

  // For an "Authorization: Bearer TOKEN" header value: "" for the owner, the
  // tenant's name for a valid tenant token, nullopt when the token is unknown,
  // revoked or expired.
  std::optional<std::string> Authenticate(absl::string_view authorization) const;
  // The same for a token given by its HashToken: what the web UI's sessions
  // keep, so that a revoked or expired token ends them too.
  std::optional<std::string> AuthenticateHash(absl::string_view hash) const;

 private:
  std::string owner_hash_;
  const TenantStore* store_ = nullptr;
  std::vector<ValidToken> fixed_;
};

}  // namespace dlp::server
