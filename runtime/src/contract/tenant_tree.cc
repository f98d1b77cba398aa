#include "contract/tenant_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dlp::contract {
namespace {

// Visits every entry below a folder, depth first; a folder's entries come
// before the folder itself (so that they can be removed first).
class Walk {
 public:
  enum class Action { kMeasure, kRemove };

  Walk(Action action, int64_t max_entries, int max_depth)
      : action_(action), max_entries_(max_entries), max_depth_(max_depth) {}

  // Walks the folder open as `fd` (which it closes).
  void Folder(int fd, int depth) {
    DIR* dir = fdopendir(fd);
    if (dir == nullptr) {
      close(fd);
      return;
    }
    while (const dirent* e = readdir(dir)) {
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      if (usage_.entries >= max_entries_) {
        usage_.complete = false;
        break;
      }
      ++usage_.entries;
      struct stat st {};
      if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      Count(st);
      const bool folder = S_ISDIR(st.st_mode);
      if (folder && depth >= max_depth_) {
        usage_.complete = false;
        continue;
      }
      if (folder) {
        // Replaced by a link since fstatat: O_NOFOLLOW refuses it.
        const int sub = openat(dirfd(dir), e->d_name,
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (sub >= 0) Folder(sub, depth + 1);
      }
      // Removing the entry readdir just returned leaves the stream's place
      // (as rm -r relies on); one that cannot go is left and reported by the
      // caller's rmdir.
      if (action_ == Action::kRemove) unlinkat(dirfd(dir), e->d_name, folder ? AT_REMOVEDIR : 0);
    }
    closedir(dir);
  }

  void Count(const struct stat& st) {
    if (st.st_nlink > 1 && !S_ISDIR(st.st_mode) &&
        !linked_.insert({st.st_dev, st.st_ino}).second) {
      return;
    }
    usage_.bytes += static_cast<int64_t>(st.st_blocks) * 512;
  }

  DiskUsage usage_;

 private:
  Action action_;
  int64_t max_entries_;
  int max_depth_;
  std::set<std::pair<dev_t, ino_t>> linked_;
};

}  // namespace

DiskUsage MeasureDiskUsage(const TenantFolder& folder, int64_t max_entries, int max_depth) {
  Walk walk(Walk::Action::kMeasure, max_entries, max_depth);
  struct stat st {};
  if (fstat(folder.fd(), &st) == 0) walk.Count(st);
  const int fd = openat(folder.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) walk.Folder(fd, 1);
  return walk.usage_;
}

absl::Status RemoveTenantFolder(const std::string& trusted_dir, std::string_view name,
                                int64_t max_entries, int max_depth) {
  absl::StatusOr<TenantFolder> folder = TenantFolder::Open(trusted_dir, name);
  if (!folder.ok()) return folder.status();
  Walk walk(Walk::Action::kRemove, max_entries, max_depth);
  const int fd = openat(folder->fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) walk.Folder(fd, 1);
  const std::string path = absl::StrCat(trusted_dir, "/", std::string(name));
  if (rmdir(path.c_str()) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::contract
