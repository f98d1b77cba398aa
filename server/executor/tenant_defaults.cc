#include "server/executor/tenant_defaults.h"

namespace dlp::server {

void ApplyTenantDefaults(int64_t replica_memory, JobSpec& spec) {
  if (replica_memory <= 0) return;
  for (ReplicaSpec& r : spec.replicas) {
    if (r.resources.memory_bytes == 0) r.resources.memory_bytes = replica_memory;
  }
}

}  // namespace dlp::server
