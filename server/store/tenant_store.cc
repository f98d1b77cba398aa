#include "server/store/tenant_store.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {
namespace {

bool PortableNameChars(absl::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

std::optional<absl::Time> FromMicros(const std::optional<int64_t>& us) {
  if (!us) return std::nullopt;
  return absl::FromUnixMicros(*us);
}

std::optional<int64_t> ToMicros(const std::optional<absl::Time>& t) {
  if (!t) return std::nullopt;
  return absl::ToUnixMicros(*t);
}

constexpr absl::string_view kTokenColumns = "id, tenant, created_us, expires_us, revoked_us";

TokenInfo ReadToken(const Statement& s) {
  TokenInfo t;
  t.id = s.Int(0);
  t.tenant = s.Text(1);
  t.created = absl::FromUnixMicros(s.Int(2));
  t.expires = FromMicros(s.OptionalInt(3));
  t.revoked = FromMicros(s.OptionalInt(4));
  return t;
}

// Columns in the order ReadTenant reads them; `q` is tenant_disk_quotas.
constexpr absl::string_view kSelectTenants =
    "SELECT t.name, t.unix_user, t.created_us, q.bytes FROM tenants t "
    "LEFT JOIN tenant_disk_quotas q ON q.tenant = t.name";

Tenant ReadTenant(const Statement& s) {
  Tenant t;
  t.name = s.Text(0);
  t.unix_user = s.Text(1);
  t.created = absl::FromUnixMicros(s.Int(2));
  t.disk_quota = s.OptionalInt(3);
  return t;
}

}  // namespace

absl::Status ValidateTenantName(absl::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-' ||
      !PortableNameChars(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tenant name \"", name,
        "\": expected 1-64 letters, digits, '.', '_' or '-', not starting with '.' or '-'"));
  }
  return absl::OkStatus();
}

absl::Status ValidateUnixUser(absl::string_view user) {
  if (user.empty() || user.size() > 32 || user[0] == '-' || !PortableNameChars(user)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unix user \"", user,
                     "\": expected 1-32 letters, digits, '.', '_' or '-', not starting with '-'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TenantStore>> TenantStore::Open(const std::string& path) {
  DLP_ASSIGN_OR_RETURN(Database db, OpenStore(path));
  std::unique_ptr<TenantStore> store(new TenantStore(std::move(db)));
  std::lock_guard<std::mutex> lock(store->db_mu_);
  DLP_RETURN_IF_ERROR(store->Refresh());
  return store;
}

absl::Status TenantStore::Refresh() {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("SELECT hash, tenant, expires_us FROM tokens WHERE revoked_us IS NULL"));
  auto tokens = std::make_shared<std::vector<ValidToken>>();
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    tokens->push_back({s.Text(0), s.Text(1), FromMicros(s.OptionalInt(2))});
  }
  std::lock_guard<std::mutex> lock(tokens_mu_);
  tokens_ = std::move(tokens);
  return absl::OkStatus();
}

std::shared_ptr<const std::vector<ValidToken>> TenantStore::ValidTokens() const {
  std::lock_guard<std::mutex> lock(tokens_mu_);
  return tokens_;
}

absl::StatusOr<Tenant> TenantStore::CreateTenant(const std::string& name,
                                                 const std::string& unix_user) {
  DLP_RETURN_IF_ERROR(ValidateTenantName(name));
  const std::string user = unix_user.empty() ? name : unix_user;
  DLP_RETURN_IF_ERROR(ValidateUnixUser(user));
  std::lock_guard<std::mutex> lock(db_mu_);
  if (GetTenantLocked(name).ok()) {
    return absl::AlreadyExistsError(absl::StrCat("tenant \"", name, "\" already exists"));
  }
  Tenant tenant{name, user, absl::FromUnixMicros(absl::ToUnixMicros(absl::Now()))};
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("INSERT INTO tenants (name, unix_user, created_us) VALUES (?, ?, ?)"));
  s.Bind(1, tenant.name).Bind(2, tenant.unix_user).Bind(3, absl::ToUnixMicros(tenant.created));
  DLP_RETURN_IF_ERROR(s.Run());
  return tenant;
}

absl::StatusOr<std::vector<Tenant>> TenantStore::ListTenants() {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare(absl::StrCat(kSelectTenants, " ORDER BY t.name")));
  std::vector<Tenant> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadTenant(s));
  }
  return out;
}

absl::StatusOr<Tenant> TenantStore::GetTenantLocked(const std::string& name) {
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare(absl::StrCat(kSelectTenants, " WHERE t.name=?")));
  s.Bind(1, name);
  DLP_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no tenant \"", name, "\""));
  return ReadTenant(s);
}

absl::StatusOr<Tenant> TenantStore::GetTenant(const std::string& name) {
  std::lock_guard<std::mutex> lock(db_mu_);
  return GetTenantLocked(name);
}

absl::StatusOr<int> TenantStore::DeleteTenant(const std::string& name) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_RETURN_IF_ERROR(GetTenantLocked(name).status());
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_ASSIGN_OR_RETURN(Statement revoke,
                       db_.Prepare("UPDATE tokens SET revoked_us=? WHERE tenant=? AND "
                                   "revoked_us IS NULL"));
  revoke.Bind(1, absl::ToUnixMicros(absl::Now())).Bind(2, name);
  DLP_RETURN_IF_ERROR(revoke.Run());
  DLP_ASSIGN_OR_RETURN(int64_t revoked, db_.QueryInt("SELECT changes()"));
  for (const char* sql :
       {"DELETE FROM tenant_disk_quotas WHERE tenant=?", "DELETE FROM tenants WHERE name=?"}) {
    DLP_ASSIGN_OR_RETURN(Statement remove, db_.Prepare(sql));
    DLP_RETURN_IF_ERROR(remove.Bind(1, name).Run());
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  DLP_RETURN_IF_ERROR(Refresh());
  return static_cast<int>(revoked);
}

absl::StatusOr<Tenant> TenantStore::SetDiskQuota(const std::string& name,
                                                 std::optional<int64_t> bytes) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_RETURN_IF_ERROR(GetTenantLocked(name).status());
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare(bytes ? "INSERT OR REPLACE INTO tenant_disk_quotas (tenant, bytes) VALUES (?, ?)"
                        : "DELETE FROM tenant_disk_quotas WHERE tenant=?"));
  s.Bind(1, name);
  if (bytes) s.Bind(2, *bytes);
  DLP_RETURN_IF_ERROR(s.Run());
  return GetTenantLocked(name);
}

absl::StatusOr<std::string> TenantStore::UnixUser(const std::string& tenant) {
  if (tenant.empty() || tenant == kOwnerTenant) return std::string();
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_ASSIGN_OR_RETURN(Tenant t, GetTenantLocked(tenant));
  return t.unix_user;
}

absl::StatusOr<TokenInfo> TenantStore::CreateToken(const std::string& tenant,
                                                   const std::string& hash,
                                                   std::optional<absl::Time> expires) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_RETURN_IF_ERROR(GetTenantLocked(tenant).status());
  DLP_ASSIGN_OR_RETURN(Statement s,
                       db_.Prepare("INSERT INTO tokens (tenant, hash, created_us, expires_us) "
                                   "VALUES (?, ?, ?, ?)"));
  s.Bind(1, tenant)
      .Bind(2, hash)
      .Bind(3, absl::ToUnixMicros(absl::Now()))
      .Bind(4, ToMicros(expires));
  DLP_RETURN_IF_ERROR(s.Run());
  const int64_t id = db_.LastInsertRowId();
  DLP_RETURN_IF_ERROR(Refresh());
  return GetTokenLocked(id);
}

absl::StatusOr<TokenInfo> TenantStore::GetTokenLocked(int64_t id) {
  DLP_ASSIGN_OR_RETURN(
      Statement s, db_.Prepare(absl::StrCat("SELECT ", kTokenColumns, " FROM tokens WHERE id=?")));
  s.Bind(1, id);
  DLP_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no token ", id));
  return ReadToken(s);
}

absl::StatusOr<std::vector<TokenInfo>> TenantStore::ListTokens(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(absl::StrCat(
                                        "SELECT ", kTokenColumns, " FROM tokens",
                                        tenant.empty() ? "" : " WHERE tenant=?", " ORDER BY id")));
  if (!tenant.empty()) s.Bind(1, tenant);
  std::vector<TokenInfo> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadToken(s));
  }
  return out;
}

absl::StatusOr<TokenInfo> TenantStore::RevokeToken(int64_t id) {
  std::lock_guard<std::mutex> lock(db_mu_);
  DLP_RETURN_IF_ERROR(GetTokenLocked(id).status());
  DLP_ASSIGN_OR_RETURN(
      Statement s, db_.Prepare("UPDATE tokens SET revoked_us=? WHERE id=? AND revoked_us IS NULL"));
  s.Bind(1, absl::ToUnixMicros(absl::Now())).Bind(2, id);
  DLP_RETURN_IF_ERROR(s.Run());
  DLP_RETURN_IF_ERROR(Refresh());
  return GetTokenLocked(id);
}

absl::StatusOr<int> TenantStore::ImportTokens(const std::vector<TokenHash>& tokens) {
  for (const TokenHash& t : tokens) DLP_RETURN_IF_ERROR(ValidateTenantName(t.tenant));
  std::lock_guard<std::mutex> lock(db_mu_);
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  const int64_t now = absl::ToUnixMicros(absl::Now());
  DLP_ASSIGN_OR_RETURN(Statement tenant,
                       db_.Prepare("INSERT OR IGNORE INTO tenants (name, unix_user, created_us) "
                                   "VALUES (?, ?, ?)"));
  DLP_ASSIGN_OR_RETURN(
      Statement token,
      db_.Prepare("INSERT OR IGNORE INTO tokens (tenant, hash, created_us) VALUES (?, ?, ?)"));
  int added = 0;
  for (const TokenHash& t : tokens) {
    tenant.Reset().Bind(1, t.tenant).Bind(2, t.tenant).Bind(3, now);
    DLP_RETURN_IF_ERROR(tenant.Run());
    token.Reset().Bind(1, t.tenant).Bind(2, t.hash).Bind(3, now);
    DLP_RETURN_IF_ERROR(token.Run());
    DLP_ASSIGN_OR_RETURN(int64_t changed, db_.QueryInt("SELECT changes()"));
    added += static_cast<int>(changed);
  }
  DLP_RETURN_IF_ERROR(tx.Commit());
  DLP_RETURN_IF_ERROR(Refresh());
  return added;
}

}  // namespace dlp::server
