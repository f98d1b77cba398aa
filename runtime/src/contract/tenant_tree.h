// Walking a folder tree a job's user owns, from a more privileged process
// (dlpd): measuring the disk space it holds (the per-tenant disk quota) and
// removing it (`dlp delete`). The rules of tenant_files.h hold: nothing is
// followed (a link counts, and is removed, as the link itself), every folder
// is opened below the one before it with O_NOFOLLOW, and a walk is bounded in
// entries and depth, so a tree of millions of entries or a deep chain of
// folders costs bounded time and descriptors. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "contract/tenant_files.h"

namespace dlp::contract {

struct DiskUsage {
  int64_t bytes = 0;    // allocated blocks (st_blocks): a sparse file counts what it uses
  int64_t entries = 0;  // entries visited
  bool complete = true;  // false: a bound was reached, `bytes` is what was counted by then
};

// Every entry below `folder` (and the folder itself), a file with several
// links once.
DiskUsage MeasureDiskUsage(const TenantFolder& folder, int64_t max_entries = 1'000'000,
                           int max_depth = 32);

// Removes the folder `name` of `trusted_dir` (a job's folder in dlpd's jobs/,
// which the job's user cannot replace) and everything below it. NotFound when
// it does not exist; FailedPrecondition, after removing what it could, when
// something remains (written meanwhile, or beyond the walk's bounds).
absl::Status RemoveTenantFolder(const std::string& trusted_dir, std::string_view name,
                                int64_t max_entries = 10'000'000, int max_depth = 64);

}  // namespace dlp::contract
