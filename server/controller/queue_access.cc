#include "server/controller/queue_access.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/tenant_store.h"

namespace dlp::server {
namespace {

std::string Range(const QueueConfig& q) {
  return absl::StrCat(q.min_priority == INT_MIN ? "" : absl::StrCat(q.min_priority), "..",
                      q.max_priority == INT_MAX ? "" : absl::StrCat(q.max_priority));
}

}  // namespace

absl::Status CheckQueueAccess(const QueueCatalog& catalog, const std::string& queue,
                              const std::string& tenant, int priority) {
  if (catalog.queues.empty()) return absl::OkStatus();
  const QueueConfig* config = catalog.Find(queue);
  if (config == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("spec.queue: no queue \"", queue,
                                                   "\"; this dlpd's queues are ", catalog.Names()));
  }
  if (!tenant.empty() && tenant != kOwnerTenant) {
    auto allowed = catalog.allowed.find(tenant);
    if (allowed == catalog.allowed.end() || !allowed->second.contains(queue)) {
      const std::string may = allowed == catalog.allowed.end() || allowed->second.empty()
                                  ? "no queue"
                                  : absl::StrCat("only ", absl::StrJoin(allowed->second, ", "));
      return absl::PermissionDeniedError(
          absl::StrCat("tenant \"", tenant, "\" may not use queue \"", queue, "\" (it may use ",
                       may, "); dlpd's owner grants queues with `dlp admin tenant update ", tenant,
                       " --queues ...`"));
    }
  }
  if (priority < config->min_priority || priority > config->max_priority) {
    return absl::InvalidArgumentError(absl::StrCat("spec.priority: ", priority,
                                                   " is outside queue ", queue,
                                                   "'s priority range ", Range(*config)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::server
