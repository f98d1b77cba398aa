// Reading /proc/PID/... of processes that may exit at any moment. A process
// that exits between open(2) and read(2) makes the read fail with ESRCH; with
// std::ifstream that became an exception that ended dlpd. These are plain
// syscalls whose failures are Status values.
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace dlp::server {

// The fields of /proc/PID/stat that dlpd uses.
struct ProcStat {
  pid_t parent = 0;
  pid_t pgrp = 0;
  pid_t session = 0;
  int64_t start_time = 0;  // clock ticks since boot: with the pid, a process's identity
  double cpu_seconds = 0;  // utime + stime
  int64_t rss_bytes = 0;
};

// /proc/PID/stat; nullopt when no such process exists or it is a zombie.
std::optional<ProcStat> ReadProcStat(pid_t pid);

// The real uid of `pid` (/proc/PID/status); nullopt when it is gone.
std::optional<uid_t> ProcessRealUid(pid_t pid);

// The whole contents of a /proc file (or any file). NotFound when it or its
// process is gone (ENOENT, ESRCH); Internal naming the path otherwise.
absl::StatusOr<std::string> ReadProcFile(const std::string& path);

// Reads `fd` to its end (the caller keeps the descriptor); errors as above,
// naming `path`.
absl::StatusOr<std::string> ReadToEnd(int fd, const std::string& path);

// "/proc/PID/NAME".
std::string ProcPath(pid_t pid, const char* name);

}  // namespace dlp::server
