// The queue calls of the dlpd API backend: /v1/admin/queues (the owner's)
// and /v1/queues (docs/api.md, "Queues").
#include "absl/strings/str_cat.h"
#include "backends/api/api_backend.h"
#include "dlp/queue.h"
#include "dlp/status.h"

namespace dlp::internal {

absl::StatusOr<Queue> ApiBackend::CreateQueue(const Queue& queue) {
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/admin/queues", QueueToJson(queue)));
  return QueueFromJson(reply);
}

absl::StatusOr<Queue> ApiBackend::UpdateQueue(const Queue& queue) {
  DLP_ASSIGN_OR_RETURN(
      std::string reply,
      PostBody(absl::StrCat("/v1/admin/queues/", UrlEncode(queue.name)), QueueToJson(queue)));
  return QueueFromJson(reply);
}

absl::StatusOr<Queue> ApiBackend::DeleteQueue(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       DeleteBody(absl::StrCat("/v1/admin/queues/", UrlEncode(name))));
  return QueueFromJson(reply);
}

absl::StatusOr<std::vector<Queue>> ApiBackend::ListQueues() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/admin/queues"));
  return QueuesFromJson(reply);
}

absl::StatusOr<std::vector<QueueUsage>> ApiBackend::QueueUsages() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/queues"));
  return QueueUsagesFromJson(reply);
}

absl::StatusOr<QueueUsage> ApiBackend::GetQueueUsage(std::string_view name) {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody(absl::StrCat("/v1/queues/", UrlEncode(name))));
  return QueueUsageFromJson(reply);
}

}  // namespace dlp::internal
