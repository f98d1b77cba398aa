// What dlpd fills in for a tenant's job on a shared machine when it starts it
// (docs/security.md): a replica that asks for no memory would otherwise run
// without a memory limit, able to take the machine's memory from every other
// tenant. The value goes into the job's cgroup limit (its Limits event names
// it), not into its spec: queues whose quotas name no memory keep admitting it.
#pragma once

#include <cstdint>

#include "dlp/job.h"

namespace dlp::server {

// dlpd's --tenant-replica-memory when not given.
inline constexpr int64_t kDefaultTenantReplicaMemory = int64_t{4} << 30;  // 4Gi

// Gives each replica of `spec` without a memory request `replica_memory`
// bytes; `replica_memory` 0 leaves the spec as it is.
void ApplyTenantDefaults(int64_t replica_memory, JobSpec& spec);

}  // namespace dlp::server
