#include "server/proc/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dlp::server {
namespace {

absl::Status ReadError(const std::string& path, int err) {
  std::string message = absl::StrCat("cannot read ", path, ": ", std::strerror(err));
  if (err == ENOENT || err == ESRCH) return absl::NotFoundError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::StatusOr<std::string> ReadToEnd(int fd, const std::string& path) {
  std::string out;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ReadError(path, errno);
    if (n == 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
}

absl::StatusOr<std::string> ReadProcFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ReadError(path, errno);
  absl::StatusOr<std::string> contents = ReadToEnd(fd, path);
  close(fd);
  return contents;
}

std::string ProcPath(pid_t pid, const char* name) { return absl::StrCat("/proc/", pid, "/", name); }

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  absl::StatusOr<std::string> read = ReadProcFile(ProcPath(pid, "stat"));
  if (!read.ok()) return std::nullopt;
  const std::string& stat = *read;
  // The command name (field 2) may hold spaces and parentheses: parse after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return std::nullopt;
  std::vector<absl::string_view> f =
      absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ', absl::SkipEmpty());
  // f[0] is field 3 (state): field N is f[N - 3].
  if (f.size() < 22 || f[0] == "Z" || f[0] == "X") return std::nullopt;
  ProcStat out;
  int64_t utime = 0, stime = 0, rss_pages = 0;
  if (!absl::SimpleAtoi(f[4 - 3], &out.parent) || !absl::SimpleAtoi(f[5 - 3], &out.pgrp) ||
      !absl::SimpleAtoi(f[6 - 3], &out.session) || !absl::SimpleAtoi(f[14 - 3], &utime) ||
      !absl::SimpleAtoi(f[15 - 3], &stime) || !absl::SimpleAtoi(f[22 - 3], &out.start_time) ||
      !absl::SimpleAtoi(f[24 - 3], &rss_pages)) {
    return std::nullopt;
  }
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const int64_t kPage = sysconf(_SC_PAGESIZE);
  out.cpu_seconds = static_cast<double>(utime + stime) / kTicks;
  out.rss_bytes = rss_pages * kPage;
  return out;
}

std::optional<uid_t> ProcessRealUid(pid_t pid) {
  absl::StatusOr<std::string> status = ReadProcFile(ProcPath(pid, "status"));
  if (!status.ok()) return std::nullopt;
  // "Uid:\treal\teffective\tsaved\tfs"
  const size_t at = status->find("\nUid:");
  if (at == std::string::npos) return std::nullopt;
  std::vector<absl::string_view> f = absl::StrSplit(
      absl::string_view(*status).substr(at + 5, 64), absl::ByAnyChar("\t \n"), absl::SkipEmpty());
  uid_t uid = 0;
  if (f.empty() || !absl::SimpleAtoi(f[0], &uid)) return std::nullopt;
  return uid;
}

}  // namespace dlp::server
