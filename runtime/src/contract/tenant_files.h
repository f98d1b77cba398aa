// Reading what a job's user controls, from a more privileged reader (dlpd as
// root). Everything under a job's folder is written by the job: any component
// may be a symbolic link to dlpd's token, a hard link to /etc/shadow, a FIFO
// or a sparse file of terabytes. The one rule (docs/security.md, "The trust
// boundary"): such files are opened only through this module, which
//  - starts from a directory descriptor the reader made and the job cannot
//    replace (dlpd's jobs/ folder), never from a path string;
//  - resolves every component below it without following any symbolic or
//    magic link and without leaving it (openat2 with RESOLVE_BENEATH |
//    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS; one component at a time with
//    O_NOFOLLOW on kernels without openat2);
//  - opens only regular files and folders that belong to the folder's owner
//    (the job's user, to whom dlpd gave the folder), without blocking;
//  - reads at most the bytes the caller allows.
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::contract {

// Owns a file descriptor; closes it on destruction.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd();
  OwnedFd(OwnedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Opens `path` below the folder `dir_fd`: a relative path whose components
// are not empty, ".", ".." nor links of any kind. `flags` are open(2)'s;
// O_NOFOLLOW, O_NONBLOCK (a FIFO must not block the reader; cleared again once
// open) and O_CLOEXEC are added. NotFound when it does not exist;
// PermissionDenied for a link or a path that would leave `dir_fd`;
// InvalidArgument for a malformed path. Messages name `path` only.
absl::StatusOr<OwnedFd> OpenBeneath(int dir_fd, std::string_view path, int flags);

// OpenBeneath as it runs on a kernel without openat2 (its tests and fuzz
// target hold it to the same rules).
absl::StatusOr<OwnedFd> OpenBeneathWalking(int dir_fd, std::string_view path, int flags);

// What a file opened through a TenantFolder is.
struct TenantFile {
  OwnedFd fd;
  int64_t size = 0;
  int64_t mtime_ns = 0;
};

// A folder the job's user owns, opened from a folder the reader trusts.
class TenantFolder {
 public:
  // Opens `name` (one component) in `trusted_dir`, a folder whose entries the
  // job's user cannot change (dlpd's jobs/). Its owner becomes the owner that
  // every file read below it must have. NotFound when it does not exist.
  static absl::StatusOr<TenantFolder> Open(const std::string& trusted_dir, std::string_view name);

  // The same rules, for a folder the caller opened itself (tests; a reader
  // that is the job's user, as the Slurm backend is, trusts its own folders).
  static absl::StatusOr<TenantFolder> FromFd(OwnedFd dir);

  // The sub-folder `path`, as a folder of its own (the same owner).
  absl::StatusOr<TenantFolder> Sub(std::string_view path) const;

  // The regular file `path`, open for reading. NotFound when it is missing;
  // PermissionDenied when it is anything but a regular file of the owner's (a
  // link, a FIFO, a device, a hard link to somebody else's file).
  absl::StatusOr<TenantFile> OpenFile(std::string_view path) const;

  // The file's bytes from `offset`, at most `limit` of them; a result of
  // `limit` bytes may have been cut. Errors as OpenFile's.
  absl::StatusOr<std::string> ReadFile(std::string_view path, uint64_t offset, size_t limit) const;

  // True when `path` exists below the folder (as anything; no link followed).
  bool Exists(std::string_view path) const;

  int fd() const { return dir_.get(); }
  uid_t owner() const { return owner_; }
  gid_t group() const { return group_; }  // the folder's group: the owner's

 private:
  TenantFolder(OwnedFd dir, uid_t owner, gid_t group)
      : dir_(std::move(dir)), owner_(owner), group_(group) {}
  OwnedFd dir_;
  uid_t owner_ = 0;
  gid_t group_ = 0;
};

// The names in `folder` (not "." or ".."), sorted; at most `max_names` of
// them. Nothing is followed or opened: a name is to be opened through the
// folder.
std::vector<std::string> ListFolder(const TenantFolder& folder, size_t max_names = 100000);

}  // namespace dlp::contract
