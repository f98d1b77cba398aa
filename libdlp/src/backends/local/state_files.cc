#include "backends/local/state_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "dlp/status.h"

namespace dlp::internal {

absl::StatusOr<std::string> ReadPrivateFile(const std::string& path) {
  // O_NOFOLLOW: a symlink planted in place of the file is refused, not followed.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  struct stat st;
  std::string problem;
  if (fstat(fd, &st) != 0) {
    problem = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else if (st.st_uid != geteuid()) {
    problem = absl::StrCat("owned by uid ", st.st_uid, ", not by this user (uid ", geteuid(), ")");
  } else if ((st.st_mode & 077) != 0) {
    problem = absl::StrFormat("mode %04o lets other users read it; it must be 0600",
                              st.st_mode & 07777);
  }
  if (!problem.empty()) {
    close(fd);
    return absl::PermissionDeniedError(absl::StrCat("refusing ", path, ": ", problem));
  }
  std::string contents;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return std::string(absl::StripAsciiWhitespace(contents));
}

absl::StatusOr<StateFiles> ReadStateFiles(const std::string& state_dir) {
  StateFiles files;
  DLP_ASSIGN_OR_RETURN(files.address, ReadPrivateFile(state_dir + "/dlpd.addr"));
  DLP_ASSIGN_OR_RETURN(files.token, ReadPrivateFile(state_dir + "/dlpd.token"));
  if (files.address.empty() || files.token.empty()) {
    // dlpd is still writing them.
    return absl::NotFoundError(absl::StrCat(state_dir, ": dlpd.addr or dlpd.token is empty"));
  }
  return files;
}

}  // namespace dlp::internal
