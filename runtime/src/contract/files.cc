#include "contract/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dlp::contract {
namespace {

// Appends the rest of `fd` to `data`, stopping once more than `limit` bytes
// are there; 0, or the errno of a read that failed.
int AppendRest(int fd, std::string& data, size_t limit = SIZE_MAX) {
  char buffer[65536];
  while (data.size() <= limit) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    data.append(buffer, static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace

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
  // read(2), not a stream: dlpd reads status and cgroup files hundreds of
  // times a second, and a stream's set-up cost more than the read.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  if (err == ENOENT) return std::optional<std::string>();
  std::string data;
  if (fd >= 0) {
    err = AppendRest(fd, data);
    close(fd);
  }
  if (err != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(err)));
  }
  return std::optional<std::string>(std::move(data));
}

absl::StatusOr<int> OpenRegularFileNoFollow(const std::string& dir, const std::string& name) {
  const std::string path = absl::StrCat(dir, "/", name);
  auto error = [&path](int err) {
    const std::string message = absl::StrCat("cannot read ", path, ": ", std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
  };
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0) return error(errno);
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const int open_errno = errno;
  close(dir_fd);
  if (fd < 0) return error(open_errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return error(EINVAL);
  }
  return fd;
}

absl::StatusOr<std::string> ReadFileNoFollow(const std::string& dir, const std::string& name,
                                             uint64_t offset, size_t limit) {
  absl::StatusOr<int> opened = OpenRegularFileNoFollow(dir, name);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  std::string data;
  if (lseek(fd, static_cast<off_t>(offset), SEEK_SET) >= 0) AppendRest(fd, data, limit);
  close(fd);
  return data;
}

bool IsSparse(int fd, const struct stat& st) {
  const int64_t on_disk = int64_t{st.st_blocks} * 512;  // st_blocks counts 512-byte units
  if (on_disk >= st.st_size / 2) return false;
  const off_t position = lseek(fd, 0, SEEK_CUR);
  const off_t hole = lseek(fd, 0, SEEK_HOLE);
  if (position >= 0) lseek(fd, position, SEEK_SET);
  return hole >= 0 && hole < st.st_size;
}

}  // namespace dlp::contract
