// Reading /proc/PID/... of processes that may exit at any moment. A process
// that exits between open(2) and read(2) makes the read fail with ESRCH; with
// std::ifstream that became an exception that ended dlpd. These are plain
// syscalls whose failures are Status values.
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace dlp::server {

// The whole contents of a /proc file (or any file). NotFound when it or its
// process is gone (ENOENT, ESRCH); Internal naming the path otherwise.
absl::StatusOr<std::string> ReadProcFile(const std::string& path);

// Reads `fd` to its end (the caller keeps the descriptor); errors as above,
// naming `path`.
absl::StatusOr<std::string> ReadToEnd(int fd, const std::string& path);

// "/proc/PID/NAME".
std::string ProcPath(pid_t pid, const char* name);

}  // namespace dlp::server
