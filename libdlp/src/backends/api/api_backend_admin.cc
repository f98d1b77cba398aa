// The administration calls of the dlpd API backend: tenants and tokens
// (/v1/admin, docs/api.md).
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "backends/api/api_backend.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {

absl::StatusOr<Tenant> ApiBackend::CreateTenant(const Tenant& tenant) {
  nlohmann::json body = {{"name", tenant.name}};
  if (!tenant.unix_user.empty()) body["unixUser"] = tenant.unix_user;
  if (!tenant.queues.empty()) body["queues"] = tenant.queues;
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/admin/tenants", body.dump()));
  return TenantFromJson(reply);
}

absl::StatusOr<Tenant> ApiBackend::SetTenantQueues(std::string_view tenant,
                                                   const std::vector<std::string>& queues) {
  nlohmann::json body = {{"queues", queues}};
  DLP_ASSIGN_OR_RETURN(
      std::string reply,
      PostBody(absl::StrCat("/v1/admin/tenants/", UrlEncode(tenant)), body.dump()));
  return TenantFromJson(reply);
}

absl::StatusOr<Tenant> ApiBackend::SetTenantDiskQuota(std::string_view tenant,
                                                      std::optional<int64_t> bytes) {
  nlohmann::json body = {{"diskQuota", nullptr}};
  if (bytes) body["diskQuota"] = FormatMemoryBytes(*bytes);
  DLP_ASSIGN_OR_RETURN(
      std::string reply,
      PostBody(absl::StrCat("/v1/admin/tenants/", UrlEncode(tenant)), body.dump()));
  return TenantFromJson(reply);
}

absl::StatusOr<std::vector<Tenant>> ApiBackend::ListTenants() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/admin/tenants"));
  return TenantsFromJson(reply);
}

absl::StatusOr<int> ApiBackend::DeleteTenant(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       DeleteBody(absl::StrCat("/v1/admin/tenants/", UrlEncode(name))));
  nlohmann::json j = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("revokedTokens") || !j["revokedTokens"].is_number_integer()) {
    return absl::InternalError("dlpd sent a malformed reply to a tenant's deletion");
  }
  return j["revokedTokens"].get<int>();
}

absl::StatusOr<NewToken> ApiBackend::CreateToken(std::string_view tenant,
                                                 std::optional<absl::Time> expires) {
  nlohmann::json body = {{"tenant", std::string(tenant)}};
  if (expires) {
    body["expires"] = absl::FormatTime(absl::RFC3339_full, *expires, absl::UTCTimeZone());
  }
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/admin/tokens", body.dump()));
  return NewTokenFromJson(reply);
}

absl::StatusOr<std::vector<TokenInfo>> ApiBackend::ListTokens(std::string_view tenant) {
  Query query;
  if (!tenant.empty()) query.emplace_back("tenant", std::string(tenant));
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/admin/tokens", query));
  return TokensFromJson(reply);
}

absl::StatusOr<TokenInfo> ApiBackend::RevokeToken(int64_t id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, DeleteBody(absl::StrCat("/v1/admin/tokens/", id)));
  return TokenFromJson(reply);
}

}  // namespace dlp::internal
