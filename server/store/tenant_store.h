// Tenants and their API tokens in dlpd's SQLite file (tables `tenants` and
// `tokens`, migrations.cc). Tokens are kept only as SHA-256 hashes; the store
// never sees one in clear. Authentication reads an in-memory copy of the
// tokens, refreshed on every change, so it costs no SQLite access.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "dlp/admin.h"
#include "server/store/sqlite.h"

namespace dlp::server {

// The tenant id the owner's jobs are stored under. '@' is not allowed in a
// tenant name, so no tenant (and no token) can ever name it.
inline constexpr char kOwnerTenant[] = "@owner";

// OK for 1-64 of [A-Za-z0-9._-] not starting with '.' or '-'; InvalidArgument
// saying so otherwise.
absl::Status ValidateTenantName(absl::string_view name);
// A Unix account name: 1-32 of [A-Za-z0-9._-] not starting with '-' (POSIX's
// portable set).
absl::Status ValidateUnixUser(absl::string_view user);

// A token to store: the tenant and the SHA-256 (hex) of the secret.
struct TokenHash {
  std::string tenant;
  std::string hash;
};

// A token that authenticates (not revoked; it may have expired since the
// snapshot was taken, hence `expires`).
struct ValidToken {
  std::string hash;
  std::string tenant;
  std::optional<absl::Time> expires;
};

class TenantStore {
 public:
  // Opens its own connection to the database at `path` and runs pending
  // migrations (the same ones as JobStore::Open).
  static absl::StatusOr<std::unique_ptr<TenantStore>> Open(const std::string& path);

  // InvalidArgument for a bad name or user; AlreadyExists when the tenant
  // exists. An empty `unix_user` means the tenant's name.
  absl::StatusOr<Tenant> CreateTenant(const std::string& name, const std::string& unix_user);
  absl::StatusOr<std::vector<Tenant>> ListTenants();
  // NotFound when there is no such tenant.
  absl::StatusOr<Tenant> GetTenant(const std::string& name);
  // Removes the tenant and revokes its tokens in one commit; returns how many
  // tokens were revoked. NotFound when there is no such tenant. Its jobs stay
  // (the caller refuses while any is active).
  absl::StatusOr<int> DeleteTenant(const std::string& name);

  // The tenant's own disk quota in bytes (0: none) becomes `bytes`; nullopt
  // removes it (dlpd's default applies again). NotFound for an unknown
  // tenant. GetTenant and ListTenants return it in Tenant::disk_quota.
  absl::StatusOr<Tenant> SetDiskQuota(const std::string& name, std::optional<int64_t> bytes);

  // The Unix account the tenant's jobs run as: its stored user (by default
  // its name); "" for kOwnerTenant or "" (dlpd's own account). NotFound for
  // an unknown tenant.
  absl::StatusOr<std::string> UnixUser(const std::string& tenant);

  // NotFound for an unknown tenant. `hash` must be the SHA-256 (hex) of a
  // fresh secret (HashToken in server/auth/auth.h).
  absl::StatusOr<TokenInfo> CreateToken(const std::string& tenant, const std::string& hash,
                                        std::optional<absl::Time> expires);
  // Every token (of `tenant` when not empty), oldest first.
  absl::StatusOr<std::vector<TokenInfo>> ListTokens(const std::string& tenant);
  // Revokes the token (revoking it again changes nothing). NotFound for an
  // unknown id.
  absl::StatusOr<TokenInfo> RevokeToken(int64_t id);

  // Adds what is missing of `tokens` (from `dlpd --tokens FILE`): the tenant
  // (its Unix user its name) and the token. A hash already stored, revoked or
  // not, is left as it is, so a revoked token never comes back. Returns how
  // many tokens were added. InvalidArgument for a bad tenant name.
  absl::StatusOr<int> ImportTokens(const std::vector<TokenHash>& tokens);

  // The tokens not revoked, as of the last change: an immutable snapshot,
  // cheap to take on every request (the Authenticator checks expiry).
  std::shared_ptr<const std::vector<ValidToken>> ValidTokens() const;

 private:
  explicit TenantStore(Database db) : db_(std::move(db)) {}
  // Reloads the snapshot of valid tokens. Caller holds db_mu_.
  absl::Status Refresh();
  absl::StatusOr<TokenInfo> GetTokenLocked(int64_t id);
  absl::StatusOr<Tenant> GetTenantLocked(const std::string& name);

  std::mutex db_mu_;  // serialises use of db_
  Database db_;
  mutable std::mutex tokens_mu_;  // guards the pointer, not what it points to
  std::shared_ptr<const std::vector<ValidToken>> tokens_;
};

}  // namespace dlp::server
