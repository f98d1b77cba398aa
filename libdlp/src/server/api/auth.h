// Bearer-token authentication for the API: the owner's token (dlpd.token)
// and, from `--tokens FILE`, one token per tenant. Thread-safe after setup.
#pragma once

#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::server {

struct TenantToken {
  std::string tenant;
  std::string token;
};

// Lines "TENANT TOKEN"; blank lines and lines starting with '#' are skipped.
// InvalidArgument naming FILE:LINE for a malformed line.
absl::StatusOr<std::vector<TenantToken>> LoadTenantTokens(const std::string& path);

// Compares in time that depends only on the lengths, not on where they differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

class Authenticator {
 public:
  Authenticator(std::string owner_token, std::vector<TenantToken> tenants)
      : owner_token_(std::move(owner_token)), tenants_(std::move(tenants)) {}

  // For an "Authorization: Bearer TOKEN" header value: "" for the owner, the
  // tenant's name for a tenant token, nullopt when the token is unknown.
  std::optional<std::string> Authenticate(absl::string_view authorization) const;

 private:
  std::string owner_token_;
  std::vector<TenantToken> tenants_;
};

}  // namespace dlp::server
