// Tenants and their API tokens, as a shared dlpd administers them (dlp admin,
// docs/tenants.md). Only the daemon's owner may change or list them; the
// Client functions that do so are in dlp/client.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp {

struct Tenant {
  std::string name;       // 1-64 of [A-Za-z0-9._-], not starting with '.' or '-'
  std::string unix_user;  // the account its jobs run as (default: the name)
  absl::Time created;
  // The queues its jobs may name (spec.queue) where dlpd has queues
  // (dlp/queue.h); the owner may use every queue.
  std::vector<std::string> queues;
  // Its own disk quota in bytes (0: none), set with `dlp admin tenant update
  // --disk-quota`; unset: dlpd's --tenant-disk-quota applies.
  std::optional<int64_t> disk_quota;
  // The quota dlpd holds it to now, either of those (0: none). Filled in by
  // dlpd; ignored in requests.
  int64_t disk_quota_in_force = 0;
};

// A token as listed: never the token itself, which only its creator sees once.
struct TokenInfo {
  int64_t id = 0;
  std::string tenant;
  absl::Time created;
  std::optional<absl::Time> expires;  // none: never expires
  std::optional<absl::Time> revoked;  // set once revoked
};

// What creating a token returns: its record and the bearer token in clear.
struct NewToken {
  TokenInfo info;
  std::string token;
};

// "30d", "12h", "90m", "2w" (a positive whole number and one unit) as a
// duration. InvalidArgument naming the expected form otherwise.
absl::StatusOr<absl::Duration> ParseTokenLifetime(std::string_view text);

// The one JSON form of these records: the dlpd API's wire format and the
// CLI's `-o json` output (docs/api.md). Times are RFC 3339 UTC.
std::string TenantToJson(const Tenant& tenant, int indent = -1);
std::string TenantsToJson(const std::vector<Tenant>& tenants, int indent = -1);  // {"tenants":[]}
absl::StatusOr<Tenant> TenantFromJson(std::string_view json);
absl::StatusOr<std::vector<Tenant>> TenantsFromJson(std::string_view json);
std::string TokenToJson(const TokenInfo& token, int indent = -1);
std::string TokensToJson(const std::vector<TokenInfo>& tokens, int indent = -1);  // {"tokens":[]}
absl::StatusOr<TokenInfo> TokenFromJson(std::string_view json);
absl::StatusOr<std::vector<TokenInfo>> TokensFromJson(std::string_view json);
// The token's record with "token": the secret, for the one reply that has it.
std::string NewTokenToJson(const NewToken& token, int indent = -1);
absl::StatusOr<NewToken> NewTokenFromJson(std::string_view json);

}  // namespace dlp
