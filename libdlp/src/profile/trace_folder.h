// A job's trace files read through the trust boundary (docs/security.md):
// dlpd reads them from the folder the job's user owns, as ReadTraceDir reads a
// folder of the caller's own.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "contract/tenant_files.h"
#include "dlp/profile.h"

namespace dlp::internal {

absl::StatusOr<std::vector<TraceFile>> ReadTraceFolder(const contract::TenantFolder& folder,
                                                       const TraceReadLimits& limits);

}  // namespace dlp::internal
