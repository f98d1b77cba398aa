// Whole-file writes and reads for the contract's files (group, status) and for
// anything else dlp keeps on disk (contexts, tokens, the job store's files).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace dlp::contract {

// Writes `contents` to `path` atomically: a temporary file in the same folder,
// fsync, then rename, then fsync of the folder (so the new name survives a
// crash), so that a reader sees the old or the new file, never half of one.
// The file gets `mode` whatever the umask. The folder must exist.
// Internal error naming the path on failure. Thread-safe.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                 int mode = 0644);

// The contents of `path`; nullopt when it does not exist. Other failures are
// errors naming the path.
absl::StatusOr<std::optional<std::string>> ReadFileIfExists(const std::string& path);

}  // namespace dlp::contract
