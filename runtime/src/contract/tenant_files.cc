#include "contract/tenant_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dlp::contract {
namespace {

constexpr size_t kMaxPath = 4096;

// A path as messages show it: a job's paths can be long.
std::string Shown(std::string_view path) { return std::string(path.substr(0, 200)); }

absl::Status Malformed(std::string_view path, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("path \"", Shown(path), "\" ", std::string(why)));
}

absl::Status CheckRelative(std::string_view path) {
  if (path.empty()) return Malformed(path, "is empty");
  if (path.size() > kMaxPath) return Malformed(path, absl::StrCat("is longer than ", kMaxPath));
  if (path.front() == '/') return Malformed(path, "is not relative");
  if (path.find('\0') != std::string_view::npos) return Malformed(path, "holds a NUL byte");
  for (absl::string_view part : absl::StrSplit(absl::string_view(path.data(), path.size()), '/')) {
    if (part.empty() || part == "." || part == "..") {
      return Malformed(path, "has an empty, \".\" or \"..\" component");
    }
  }
  return absl::OkStatus();
}

absl::Status OpenError(std::string_view path, int err) {
  const std::string what = Shown(path);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(absl::StrCat("cannot read ", what, ": no such file"));
    case ELOOP:
    case EXDEV:
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot read ", what, ": a link, or a path out of its folder; not followed"));
    default:
      return absl::PermissionDeniedError(
          absl::StrCat("cannot read ", what, ": ", std::strerror(err)));
  }
}

// openat2(2), which glibc 2.36 does not wrap; -1 with errno (ENOSYS before 5.6).
int OpenAt2(int dir_fd, const std::string& path, int flags) {
  struct open_how how = {};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(syscall(SYS_openat2, dir_fd, path.c_str(), &how, sizeof(how)));
}

// Where openat2 is missing: one component at a time, none of them a link.
int OpenWalking(int dir_fd, std::string_view path, int flags) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(path.data(), path.size()), '/');
  OwnedFd dir;
  int at = dir_fd;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    OwnedFd next(openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return -1;
    dir = std::move(next);
    at = dir.get();
  }
  return openat(at, parts.back().c_str(), flags);
}

std::atomic<bool> openat2_missing{false};  // set on the first ENOSYS

absl::StatusOr<OwnedFd> OpenChecked(int dir_fd, std::string_view path, int flags, bool walking) {
  if (absl::Status ok = CheckRelative(path); !ok.ok()) return ok;
  // openat2 refuses O_PATH with anything but these.
  flags |= (flags & O_PATH) ? O_NOFOLLOW | O_CLOEXEC : O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int fd = -1;
  if (!walking && !openat2_missing.load(std::memory_order_relaxed)) {
    fd = OpenAt2(dir_fd, std::string(path), flags);
    if (fd < 0 && errno == ENOSYS) openat2_missing.store(true, std::memory_order_relaxed);
  }
  if (walking || openat2_missing.load(std::memory_order_relaxed)) {
    fd = OpenWalking(dir_fd, path, flags);
  }
  if (fd < 0) return OpenError(path, errno);
  // O_NONBLOCK only kept a FIFO from blocking the open.
  if (!(flags & O_PATH)) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return OwnedFd(fd);
}

}  // namespace

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) close(fd_);
}

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

absl::StatusOr<OwnedFd> OpenBeneath(int dir_fd, std::string_view path, int flags) {
  return OpenChecked(dir_fd, path, flags, /*walking=*/false);
}

absl::StatusOr<OwnedFd> OpenBeneathWalking(int dir_fd, std::string_view path, int flags) {
  return OpenChecked(dir_fd, path, flags, /*walking=*/true);
}

absl::StatusOr<TenantFolder> TenantFolder::Open(const std::string& trusted_dir,
                                                std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos) {
    return Malformed(name, "is not one path component");
  }
  OwnedFd parent(open(trusted_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!parent) return OpenError(trusted_dir, errno);
  absl::StatusOr<OwnedFd> dir = OpenBeneath(parent.get(), name, O_RDONLY | O_DIRECTORY);
  if (!dir.ok()) return dir.status();
  return FromFd(std::move(*dir));
}

absl::StatusOr<TenantFolder> TenantFolder::FromFd(OwnedFd dir) {
  struct stat st;
  if (fstat(dir.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError("not a folder");
  }
  return TenantFolder(std::move(dir), st.st_uid, st.st_gid);
}

absl::StatusOr<TenantFolder> TenantFolder::Sub(std::string_view path) const {
  absl::StatusOr<OwnedFd> dir = OpenBeneath(dir_.get(), path, O_RDONLY | O_DIRECTORY);
  if (!dir.ok()) return dir.status();
  struct stat st;
  if (fstat(dir->get(), &st) != 0 || st.st_uid != owner_) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", Shown(path), ": not a folder of the job's user"));
  }
  return TenantFolder(std::move(*dir), owner_, group_);
}

absl::StatusOr<TenantFile> TenantFolder::OpenFile(std::string_view path) const {
  absl::StatusOr<OwnedFd> fd = OpenBeneath(dir_.get(), path, O_RDONLY);
  if (!fd.ok()) return fd.status();
  struct stat st;
  if (fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != owner_) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", Shown(path), ": not a regular file of the job's user"));
  }
  return TenantFile{std::move(*fd), static_cast<int64_t>(st.st_size),
                    static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

absl::StatusOr<std::string> TenantFolder::ReadFile(std::string_view path, uint64_t offset,
                                                   size_t limit) const {
  absl::StatusOr<TenantFile> file = OpenFile(path);
  if (!file.ok()) return file.status();
  std::string data;
  char buf[1 << 16];
  while (data.size() < limit) {
    const ssize_t n = pread(file->fd.get(), buf, std::min(sizeof(buf), limit - data.size()),
                            static_cast<off_t>(offset + data.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return OpenError(path, errno);
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

bool TenantFolder::Exists(std::string_view path) const {
  return OpenBeneath(dir_.get(), path, O_PATH).ok();
}

std::vector<std::string> ListFolder(const TenantFolder& folder, size_t max_names) {
  std::vector<std::string> names;
  const int fd = dup(folder.fd());
  if (fd < 0) return names;
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return names;
  }
  rewinddir(dir);  // the descriptor's offset is shared with the folder's
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (names.size() >= max_names) break;
    names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dlp::contract
