// Whole-file writes and reads for the contract's files (group, status) and for
// anything else dlp keeps on disk (contexts, tokens, the job store's files).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace dlp::contract {

// Writes `contents` to `path` atomically: a temporary file in the same folder,
// fsync, then rename, so that a reader sees the old or the new file, never half
// of one. The file gets `mode` whatever the umask. The folder must exist.
// Internal error naming the path on failure. Thread-safe.
absl::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                 int mode = 0644);

// The mode of the files a job's runner writes (status, logs, traces): they hold
// the job's output and are its user's alone (docs/runtime-contract.md).
inline constexpr int kPrivateFileMode = 0600;

// open(path, O_WRONLY | O_CREAT | O_CLOEXEC | extra_flags) with mode
// kPrivateFileMode whatever the umask, and an existing file set to it too.
// The descriptor, or -1 with errno set.
int OpenPrivateFile(const std::string& path, int extra_flags);

// The contents of `path`; nullopt when it does not exist. Other failures are
// errors naming the path.
absl::StatusOr<std::optional<std::string>> ReadFileIfExists(const std::string& path);

}  // namespace dlp::contract
