// Queues (docs/api.md, "Queues"): the owner's GET/POST /v1/admin/queues and
// POST (update)/DELETE /v1/admin/queues/NAME; everyone's GET /v1/queues and
// /v1/queues/NAME, each queue's standing (tenants see every queue's totals,
// never another tenant's jobs); GET /v1/usage/history, what each tenant's
// jobs held over the past hours (the owner's: every tenant's).
#include "absl/strings/str_cat.h"
#include "dlp/queue.h"
#include "dlp/status.h"
#include "server/api/owner_only.h"
#include "server/api/routes.h"
#include "server/api/usage_history.h"
#include "server/http/query_params.h"

namespace dlp::server {
namespace {

constexpr int kUsageBuckets = 48;
constexpr int64_t kMaxUsageHours = 720;  // 30 days

QueueUsage UsageOf(const QueueStatus& s) {
  QueueUsage u;
  u.name = s.config.name;
  u.cohort = s.config.cohort;
  u.nominal = ToQueueResources(s.config.nominal);
  u.used = ToQueueResources(s.used);
  u.borrowed = ToQueueResources(s.borrowed);
  u.lent = ToQueueResources(s.lent);
  u.pending = s.pending;
  u.running = s.running;
  u.share = s.share;
  if (s.recent) {
    u.recent = ToQueueResources(*s.recent);
    u.recent_percent = s.recent_percent;
    u.half_life_seconds = absl::ToInt64Seconds(s.half_life);
  }
  return u;
}

absl::StatusOr<QueueConfig> QueueFromBody(const std::string& body, const std::string& name) {
  DLP_ASSIGN_OR_RETURN(Queue queue, QueueFromJson(body));
  if (!name.empty()) {
    if (!queue.name.empty() && queue.name != name) {
      return absl::InvalidArgumentError(absl::StrCat(
          "name: \"", queue.name, "\" differs from the queue in the path, \"", name, "\""));
    }
    queue.name = name;
  }
  return ToQueueConfig(queue);
}

// Like a tenant's deletion: refused while jobs are Queued or Running in it.
absl::StatusOr<std::string> DeleteQueue(const ApiContext& ctx, const std::string& name) {
  const QueueConfig* found = ctx.queues->Catalog()->Find(name);
  if (found == nullptr) return absl::NotFoundError(absl::StrCat("no queue \"", name, "\""));
  const Queue queue = ToQueue(*found);
  if (int active = ctx.controller->ActiveJobsIn(name); active > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("queue \"", name, "\" has ", active, " active job", active == 1 ? "" : "s",
                     "; cancel them or wait for them to end, then delete the queue"));
  }
  DLP_RETURN_IF_ERROR(ctx.queues->Delete(name));
  ctx.controller->Reschedule();
  return QueueToJson(queue);
}

std::vector<QueueUsage> Usages(const ApiContext& ctx) {
  std::vector<QueueUsage> out;
  for (const QueueStatus& s : ctx.controller->QueueStatuses()) out.push_back(UsageOf(s));
  return out;
}

}  // namespace

void InstallQueueRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Get("/v1/admin/queues",
             OwnerOnly(ctx, 200, [&ctx](const httplib::Request&) -> absl::StatusOr<std::string> {
               std::vector<Queue> queues;
               for (const QueueConfig& q : ctx.queues->Catalog()->queues) {
                 queues.push_back(ToQueue(q));
               }
               return QueuesToJson(queues);
             }));
  server.Post(
      "/v1/admin/queues",
      OwnerOnly(ctx, 201, [&ctx](const httplib::Request& req) -> absl::StatusOr<std::string> {
        DLP_ASSIGN_OR_RETURN(QueueConfig wanted, QueueFromBody(req.body, ""));
        DLP_ASSIGN_OR_RETURN(QueueConfig created, ctx.queues->Create(wanted));
        ctx.controller->Reschedule();
        return QueueToJson(ToQueue(created));
      }));
  server.Post(
      R"(/v1/admin/queues/([^/]+))",
      OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) -> absl::StatusOr<std::string> {
        DLP_ASSIGN_OR_RETURN(QueueConfig wanted, QueueFromBody(req.body, req.matches[1].str()));
        DLP_ASSIGN_OR_RETURN(QueueConfig updated, ctx.queues->Update(wanted));
        ctx.controller->Reschedule();
        return QueueToJson(ToQueue(updated));
      }));
  server.Delete(R"(/v1/admin/queues/([^/]+))",
                OwnerOnly(ctx, 200, [&ctx](const httplib::Request& req) {
                  return DeleteQueue(ctx, req.matches[1].str());
                }));

  server.Get("/v1/queues", [&ctx](const httplib::Request&, httplib::Response& res) {
    SendAdminJson(res, 200, QueueUsagesToJson(Usages(ctx)));
  });
  server.Get(R"(/v1/queues/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    for (const QueueUsage& u : Usages(ctx)) {
      if (u.name == req.matches[1].str()) return SendAdminJson(res, 200, QueueUsageToJson(u));
    }
    SendError(res, absl::NotFoundError(absl::StrCat("no queue \"", req.matches[1].str(), "\"")));
  });
  server.Get("/v1/usage/history", [&ctx](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<int64_t> hours = IntParam(req, "hours", 24, 1, kMaxUsageHours);
    if (!hours.ok()) return SendError(res, hours.status());
    absl::StatusOr<std::vector<Job>> jobs = ctx.controller->List(ListFilter{}, TenantOf(ctx, req));
    if (!jobs.ok()) return SendError(res, jobs.status());
    const absl::Duration bucket = absl::Hours(*hours) / kUsageBuckets;
    res.status = 200;
    res.set_content(
        UsageHistoryToJson(TenantUsageHistory(*jobs, absl::Now(), bucket, kUsageBuckets)) + "\n",
        "application/json");
  });
}

}  // namespace dlp::server
