// Tenants and tokens, for the owner only (docs/api.md, "Administration"):
// GET/POST /v1/admin/tenants, POST (its queues, its disk quota)/DELETE
// /v1/admin/tenants/NAME,
// GET/POST /v1/admin/tokens, DELETE /v1/admin/tokens/ID (revokes).
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/admin.h"
#include "dlp/status.h"
#include "server/api/owner_only.h"
#include "server/api/routes.h"
#include "server/executor/run_as.h"

namespace dlp::server {
namespace {

// The tenant as the API shows it: with the queues it may use and the disk
// quota it is held to.
Tenant Shown(const ApiContext& ctx, Tenant tenant) {
  std::shared_ptr<const QueueCatalog> catalog = ctx.queues->Catalog();
  auto allowed = catalog->allowed.find(tenant.name);
  tenant.queues.clear();
  if (allowed != catalog->allowed.end()) {
    tenant.queues.assign(allowed->second.begin(), allowed->second.end());
  }
  tenant.disk_quota_in_force = ctx.disk_quota != nullptr ? ctx.disk_quota->QuotaOf(tenant.name)
                                                         : tenant.disk_quota.value_or(0);
  return tenant;
}

// {"queues": [...]} and/or {"diskQuota": "10Gi" | null}: what is present
// changes (null: back to dlpd's --tenant-disk-quota), the rest stays.
absl::StatusOr<std::string> UpdateTenant(const ApiContext& ctx, const std::string& name,
                                         const std::string& request) {
  DLP_ASSIGN_OR_RETURN(Tenant tenant, ctx.tenants->GetTenant(name));
  DLP_ASSIGN_OR_RETURN(Tenant wanted, TenantFromJson(request));
  const nlohmann::json fields = nlohmann::json::parse(request, nullptr, false);
  const bool queues = fields.contains("queues"), quota = fields.contains("diskQuota");
  if (!queues && !quota) {
    return absl::InvalidArgumentError(
        "expected {\"queues\": [...]} or {\"diskQuota\": \"10Gi\"} (null: dlpd's default)");
  }
  if (queues) DLP_RETURN_IF_ERROR(ctx.queues->SetTenantQueues(tenant.name, wanted.queues));
  if (quota) {
    DLP_ASSIGN_OR_RETURN(tenant, ctx.tenants->SetDiskQuota(tenant.name, wanted.disk_quota));
  }
  return TenantToJson(Shown(ctx, tenant));
}

// The ids of the tenant's Queued and Running jobs.
absl::StatusOr<std::vector<std::string>> ActiveJobs(const ApiContext& ctx,
                                                    const std::string& tenant) {
  std::vector<std::string> ids;
  for (JobState state : {JobState::kQueued, JobState::kRunning}) {
    ListFilter filter;
    filter.state = state;
    DLP_ASSIGN_OR_RETURN(std::vector<Job> jobs, ctx.controller->List(filter, tenant));
    for (const Job& job : jobs) ids.push_back(job.id);
  }
  return ids;
}

// Like Slurm's sacctmgr, which will not remove a user with running jobs: a
// tenant with Queued or Running jobs stays until they end or are cancelled.
// Otherwise the tenant goes and its tokens are revoked; its finished jobs stay
// in the history under its name.
absl::StatusOr<std::string> DeleteTenant(const ApiContext& ctx, const std::string& name) {
  DLP_ASSIGN_OR_RETURN(Tenant tenant, ctx.tenants->GetTenant(name));
  DLP_ASSIGN_OR_RETURN(std::vector<std::string> active, ActiveJobs(ctx, name));
  if (!active.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tenant \"", name, "\" has ", active.size(), " active job", active.size() == 1 ? "" : "s",
        " (", absl::StrJoin(active, ", "), "); cancel ", active.size() == 1 ? "it" : "them",
        " or wait for ", active.size() == 1 ? "it" : "them", " to end, then delete the tenant"));
  }
  DLP_ASSIGN_OR_RETURN(int revoked, ctx.tenants->DeleteTenant(name));
  DLP_RETURN_IF_ERROR(ctx.queues->RemoveTenant(name));
  nlohmann::ordered_json body = nlohmann::ordered_json::parse(TenantToJson(tenant));
  body["revokedTokens"] = revoked;
  return body.dump();
}

absl::StatusOr<std::string> CreateToken(const ApiContext& ctx, const std::string& request) {
  DLP_ASSIGN_OR_RETURN(TokenInfo wanted, TokenFromJson(request));
  if (wanted.tenant.empty()) return absl::InvalidArgumentError("tenant: required");
  DLP_ASSIGN_OR_RETURN(std::string secret, NewSecretToken());
  NewToken created;
  DLP_ASSIGN_OR_RETURN(created.info,
                       ctx.tenants->CreateToken(wanted.tenant, HashToken(secret), wanted.expires));
  created.token = std::move(secret);
  return NewTokenToJson(created);
}

}  // namespace

absl::Status RequireOwner(const ApiContext& ctx, const httplib::Request& req) {
  const std::string tenant = TenantOf(ctx, req);
  if (tenant.empty()) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("only dlpd's owner may administer tenants, tokens and queues; this token "
                   "belongs to tenant \"",
                   tenant, "\""));
}

void SendAdminJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body + "\n", "application/json");
}

void InstallAdminRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Get("/v1/admin/tenants",
             OwnerOnly(ctx, 200, [&ctx](const httplib::Request&) -> absl::StatusOr<std::string> {
               DLP_ASSIGN_OR_RETURN(std::vector<Tenant> tenants, ctx.tenants->ListTenants());
               for (Tenant& t : tenants) t = Shown(ctx, std::move(t));
               return TenantsToJson(tenants);
             }));
  server.Post(
      "/v1/admin/tenants",
      OwnerOnly(ctx, 201, [&ctx](const httplib::Request& req) -> absl::StatusOr<std::string> {
        DLP_ASSIGN_OR_RETURN(Tenant wanted, TenantFromJson(req.body));
        if (!ctx.tenants_refused.empty()) {
          return absl::FailedPreconditionError(
              absl::StrCat("this dlpd serves its owner only: ", ctx.tenants_refused));
        }
        // The account must exist now: its jobs run as it (run_as.h). Checked after
        // the name, so a bad or taken name is reported as such.
        DLP_RETURN_IF_ERROR(ValidateTenantName(wanted.name));
        if (!wanted.unix_user.empty()) DLP_RETURN_IF_ERROR(ValidateUnixUser(wanted.unix_user));
        if (ctx.tenants->UnixUser(wanted.name).ok()) {
          return absl::AlreadyExistsError(absl::StrCat("tenant \"", wanted.name, "\" already exists"));
        }
        const std::string user = wanted.unix_user.empty() ? wanted.name : wanted.unix_user;
        if (absl::Status account = LookupUnixAccount(user).status(); !account.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("tenant ", wanted.name, ": ", account.message()));
        }
        // Unknown queues are refused before the tenant exists.
        for (const std::string& q : wanted.queues) {
          if (ctx.queues->Catalog()->Find(q) == nullptr) {
            return absl::NotFoundError(absl::StrCat(
                "no queue \"", q, "\"; this dlpd's queues: ", ctx.queues->Catalog()->Names()));
          }
        }
        DLP_ASSIGN_OR_RETURN(Tenant created,
                             ctx.tenants->CreateTenant(wanted.name, wanted.unix_user));
        if (!wanted.queues.empty()) {
          DLP_RETURN_IF_ERROR(ctx.queues->SetTenantQueues(wanted.name, wanted.queues));
        }
        if (wanted.disk_quota) {
          DLP_ASSIGN_OR_RETURN(created, ctx.tenants->SetDiskQuota(created.name, wanted.disk_quota));
        }
        return TenantToJson(Shown(ctx, created));
      }));
  server.Post(R"(/v1/admin/tenants/([^/]+))",
              OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) {
                return UpdateTenant(ctx, req.matches[1], req.body);
              }));
  server.Delete(R"(/v1/admin/tenants/([^/]+))",
                OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) {
                  return DeleteTenant(ctx, req.matches[1]);
                }));
  server.Get(
      "/v1/admin/tokens",
      OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) -> absl::StatusOr<std::string> {
        DLP_ASSIGN_OR_RETURN(std::vector<TokenInfo> tokens,
                             ctx.tenants->ListTokens(req.get_param_value("tenant")));
        return TokensToJson(tokens);
      }));
  server.Post("/v1/admin/tokens", OwnerOnly(ctx, 201, [&ctx](const httplib::Request& req) {
                return CreateToken(ctx, req.body);
              }));
  server.Delete(
      R"(/v1/admin/tokens/([^/]+))",
      OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) -> absl::StatusOr<std::string> {
        int64_t id = 0;
        if (!absl::SimpleAtoi(req.matches[1].str(), &id) || id <= 0) {
          return absl::NotFoundError(absl::StrCat("no token ", req.matches[1].str()));
        }
        DLP_ASSIGN_OR_RETURN(TokenInfo token, ctx.tenants->RevokeToken(id));
        return TokenToJson(token);
      }));
}

}  // namespace dlp::server
