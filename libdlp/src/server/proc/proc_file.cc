#include "server/proc/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

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

}  // namespace dlp::server
