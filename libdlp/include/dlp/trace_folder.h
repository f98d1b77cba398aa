// A job's trace files read from a folder the caller holds open: dlpd opens a
// job's folder once, through the trust boundary (docs/security.md), and reads
// the traces from it as ReadTraceDir (dlp/profile.h) reads a path: links and
// other users' files are skipped, and no more than `limits` is read.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "dlp/profile.h"

namespace dlp {

// `folder_fd` stays the caller's (it is not closed). NotFound when it is not
// an open folder.
absl::StatusOr<std::vector<TraceFile>> ReadTraceFolder(int folder_fd,
                                                       const TraceReadLimits& limits = {});

}  // namespace dlp
