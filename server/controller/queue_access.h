// Which queue a job may name: where dlpd has queues, the queue must exist,
// the tenant must be allowed into it (the owner may use any) and the job's
// priority must lie in the queue's range. With no queue configured every
// queue name is accepted, as before queues existed.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "server/store/queue_store.h"

namespace dlp::server {

// InvalidArgument for an unknown queue (naming the known ones) or a priority
// outside its range; PermissionDenied when `tenant` ("" or kOwnerTenant: the
// owner) may not use it.
absl::Status CheckQueueAccess(const QueueCatalog& catalog, const std::string& queue,
                              const std::string& tenant, int priority);

}  // namespace dlp::server
