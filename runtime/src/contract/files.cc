#include "contract/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace dlp::contract {

absl::Status WriteFileAtomically(const std::string& path, std::string_view contents, int mode) {
  std::string tmp = absl::StrCat(path, ".tmp-XXXXXX");
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  fchmod(fd, static_cast<mode_t>(mode));
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    written += static_cast<size_t>(n);
  }
  const bool ok = written == contents.size() && fsync(fd) == 0;
  const int saved_errno = errno;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = ok ? errno : saved_errno;
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

int OpenPrivateFile(const std::string& path, int extra_flags) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | extra_flags, kPrivateFileMode);
  // The umask may have removed bits, and an older file may have had more.
  if (fd >= 0 && fchmod(fd, kPrivateFileMode) != 0) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

absl::StatusOr<std::optional<std::string>> ReadFileIfExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<std::string>();
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream out;
  out << in.rdbuf();
  return std::optional<std::string>(out.str());
}

}  // namespace dlp::contract
