// The JSON form of tenants and tokens (dlp/admin.h), and token lifetimes.
#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/admin.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {
namespace {

using internal::Json;
using internal::OrderedJson;

OrderedJson OptionalTime(const std::optional<absl::Time>& t) {
  return t ? OrderedJson(internal::FormatApiTime(*t)) : OrderedJson(nullptr);
}

OrderedJson TenantValue(const Tenant& t) {
  return OrderedJson{
      {"name", t.name},
      {"unixUser", t.unix_user},
      {"created", internal::FormatApiTime(t.created)},
      {"queues", t.queues},
      {"diskQuota",
       t.disk_quota ? OrderedJson(FormatMemoryBytes(*t.disk_quota)) : OrderedJson(nullptr)},
      {"diskQuotaInForce", FormatMemoryBytes(t.disk_quota_in_force)}};
}

// A byte quantity ("10Gi", or a number of bytes); absent or null leaves `out`.
absl::Status ReadOptionalBytes(const Json& value, absl::string_view path, const char* key,
                               std::optional<int64_t>* out) {
  auto it = value.find(key);
  if (it == value.end() || it->is_null()) return absl::OkStatus();
  const std::string field = path.empty() ? key : absl::StrCat(path, ".", key);
  if (!it->is_string() && !it->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": expected a size such as \"10Gi\", got ", it->type_name()));
  }
  absl::StatusOr<int64_t> bytes =
      ParseMemoryBytes(it->is_string() ? it->get<std::string>() : it->dump());
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(field, ": ", bytes.status().message()));
  *out = *bytes;
  return absl::OkStatus();
}

absl::StatusOr<Tenant> TenantFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "tenant"));
  Tenant t;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "name", &t.name));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "unixUser", &t.unix_user));
  DLP_RETURN_IF_ERROR(internal::ReadTime(value, path, "created", &t.created));
  DLP_RETURN_IF_ERROR(internal::ReadStringList(value, path, "queues", &t.queues));
  DLP_RETURN_IF_ERROR(ReadOptionalBytes(value, path, "diskQuota", &t.disk_quota));
  std::optional<int64_t> in_force;
  DLP_RETURN_IF_ERROR(ReadOptionalBytes(value, path, "diskQuotaInForce", &in_force));
  t.disk_quota_in_force = in_force.value_or(0);
  return t;
}

OrderedJson TokenValue(const TokenInfo& t) {
  return OrderedJson{{"id", absl::StrCat(t.id)},
                     {"tenant", t.tenant},
                     {"created", internal::FormatApiTime(t.created)},
                     {"expires", OptionalTime(t.expires)},
                     {"revoked", OptionalTime(t.revoked)}};
}

absl::StatusOr<TokenInfo> TokenFromValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "token"));
  TokenInfo t;
  std::string id;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "id", &id));
  if (!id.empty() && !absl::SimpleAtoi(id, &t.id)) {
    return absl::InvalidArgumentError(absl::StrCat(path.empty() ? "" : absl::StrCat(path, "."),
                                                   "id: expected a number, got \"", id, "\""));
  }
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "tenant", &t.tenant));
  DLP_RETURN_IF_ERROR(internal::ReadTime(value, path, "created", &t.created));
  DLP_RETURN_IF_ERROR(internal::ReadOptionalTime(value, path, "expires", &t.expires));
  DLP_RETURN_IF_ERROR(internal::ReadOptionalTime(value, path, "revoked", &t.revoked));
  return t;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseTokenLifetime(std::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a lifetime such as 30d, 12h, 90m or 2w, got \"", std::string(text), "\""));
  };
  if (text.size() < 2) return invalid();
  int64_t count = 0;
  if (!std::isdigit(static_cast<unsigned char>(text[0])) ||
      !absl::SimpleAtoi(absl::string_view(text.data(), text.size() - 1), &count) || count <= 0) {
    return invalid();
  }
  absl::Duration unit;
  switch (text.back()) {
    case 'm':
      unit = absl::Minutes(1);
      break;
    case 'h':
      unit = absl::Hours(1);
      break;
    case 'd':
      unit = absl::Hours(24);
      break;
    case 'w':
      unit = absl::Hours(24 * 7);
      break;
    default:
      return invalid();
  }
  const absl::Duration lifetime = count * unit;
  if (lifetime > absl::Hours(100 * 366 * 24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("lifetime \"", std::string(text), "\" is longer than 100 years"));
  }
  return lifetime;
}

std::string TenantToJson(const Tenant& tenant, int indent) {
  return internal::DumpJson(TenantValue(tenant), indent);
}

std::string TenantsToJson(const std::vector<Tenant>& tenants, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const Tenant& t : tenants) list.push_back(TenantValue(t));
  return internal::DumpJson(OrderedJson{{"tenants", list}}, indent);
}

absl::StatusOr<Tenant> TenantFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a tenant"));
  return TenantFromValue(value, "");
}

absl::StatusOr<std::vector<Tenant>> TenantsFromJson(std::string_view json) {
  return internal::ReadListing<Tenant>(json, "tenants", "a tenant list", TenantFromValue);
}

std::string TokenToJson(const TokenInfo& token, int indent) {
  return internal::DumpJson(TokenValue(token), indent);
}

std::string TokensToJson(const std::vector<TokenInfo>& tokens, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const TokenInfo& t : tokens) list.push_back(TokenValue(t));
  return internal::DumpJson(OrderedJson{{"tokens", list}}, indent);
}

absl::StatusOr<TokenInfo> TokenFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a token"));
  return TokenFromValue(value, "");
}

absl::StatusOr<std::vector<TokenInfo>> TokensFromJson(std::string_view json) {
  return internal::ReadListing<TokenInfo>(json, "tokens", "a token list", TokenFromValue);
}

std::string NewTokenToJson(const NewToken& token, int indent) {
  OrderedJson value = TokenValue(token.info);
  value["token"] = token.token;
  return internal::DumpJson(value, indent);
}

absl::StatusOr<NewToken> NewTokenFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a new token"));
  NewToken out;
  DLP_ASSIGN_OR_RETURN(out.info, TokenFromValue(value, ""));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, "", "token", &out.token));
  if (out.token.empty()) return absl::InvalidArgumentError("token: missing in the reply");
  return out;
}

}  // namespace dlp
