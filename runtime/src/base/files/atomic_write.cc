#include "base/files/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dlp::base {

absl::Status WriteFileAtomically(const std::string& path, std::string_view contents, int mode,
                                 FileSync sync) {
  const bool durable = sync == FileSync::kDurable;
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
  const bool ok = written == contents.size() && (!durable || fsync(fd) == 0);
  const int saved_errno = errno;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = ok ? errno : saved_errno;
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
  }
  if (!durable) return absl::OkStatus();
  // The rename is durable only once the folder holding the name is synced.
  const size_t slash = path.rfind('/');
  std::string dir = ".";
  if (slash != std::string::npos) dir = slash == 0 ? "/" : path.substr(0, slash);
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int synced = dfd < 0 ? -1 : fsync(dfd);
  const int sync_errno = errno;
  if (dfd >= 0) close(dfd);
  if (synced != 0) {
    return absl::InternalError(
        absl::StrCat("cannot sync the folder of ", path, ": ", std::strerror(sync_errno)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::base
