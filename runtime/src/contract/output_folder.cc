#include "contract/output_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/strings/string_view_compat.h"
#include "contract/sha256.h"
#include "dlp/status.h"

namespace dlp::contract {
namespace {

constexpr int kMaxDepth = 32;

absl::Time MtimeOf(const struct stat& st) {
  return absl::FromUnixSeconds(st.st_mtim.tv_sec) + absl::Nanoseconds(st.st_mtim.tv_nsec);
}

absl::Status NotThere(std::string_view path) {
  return absl::NotFoundError(absl::StrCat("no artifact \"", base::ToAbsl(path),
                                          "\" (not a regular file in the job's output folder)"));
}

struct Walk {
  std::vector<OutputFile> found;
  bool digests = false;
  uid_t owner = 0;
};

absl::Status ListDir(int dir_fd, const std::string& prefix, int depth, Walk& walk) {
  if (depth > kMaxDepth) {
    close(dir_fd);
    return absl::OkStatus();
  }
  DIR* dir = fdopendir(dir_fd);
  if (dir == nullptr) {
    close(dir_fd);
    return absl::OkStatus();
  }
  std::vector<std::string> names;
  while (struct dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  absl::Status status;
  for (const std::string& name : names) {
    const std::string rel = prefix.empty() ? name : absl::StrCat(prefix, "/", name);
    struct stat st;
    if (fstatat(dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      const int sub =
          openat(dirfd(dir), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) status = ListDir(sub, rel, depth + 1, walk);
    } else if (S_ISREG(st.st_mode) && st.st_uid == walk.owner && rel.size() <= kMaxArtifactPath) {
      if (walk.found.size() >= kMaxArtifactsListed) {
        status = absl::ResourceExhaustedError(absl::StrCat("the output folder holds more than ",
                                                           kMaxArtifactsListed,
                                                           " files; name a sub-folder"));
      } else {
        OutputFile a{rel, static_cast<int64_t>(st.st_size), "", MtimeOf(st)};
        if (walk.digests) {
          // Opened again: the entry may have been swapped since fstatat.
          OwnedFd fd(
              openat(dirfd(dir), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
          struct stat now;
          if (!fd || fstat(fd.get(), &now) != 0 || !S_ISREG(now.st_mode) ||
              now.st_uid != walk.owner) {
            continue;
          }
          absl::StatusOr<std::string> digest = Sha256OfFd(fd.get());
          if (!digest.ok()) continue;
          a.sha256 = *digest;
        }
        walk.found.push_back(std::move(a));
      }
    }
    if (!status.ok()) break;
  }
  closedir(dir);
  return status;
}

}  // namespace

absl::Status ValidateArtifactPath(std::string_view path) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("artifact path \"", base::ToAbsl(path.substr(0, 200)), "\": ", why));
  };
  if (path.empty()) return bad("empty");
  if (path.size() > kMaxArtifactPath) return bad(absl::StrCat("longer than ", kMaxArtifactPath));
  if (path.front() == '/') return bad("must be relative to the output folder");
  if (path.find('\0') != std::string_view::npos) return bad("contains a NUL byte");
  for (absl::string_view part : absl::StrSplit(base::ToAbsl(path), '/')) {
    if (part.empty()) return bad("has an empty component");
    if (part == "." || part == "..") return bad("may not contain \".\" or \"..\"");
  }
  return absl::OkStatus();
}

absl::StatusOr<OpenedArtifact> OpenArtifact(const TenantFolder& output, std::string_view path) {
  DLP_RETURN_IF_ERROR(ValidateArtifactPath(path));
  absl::StatusOr<TenantFile> file = output.OpenFile(path);
  if (!file.ok()) return NotThere(path);
  return OpenedArtifact{std::move(file->fd), file->size,
                        absl::FromUnixNanos(file->mtime_ns)};
}

absl::StatusOr<std::vector<OutputFile>> ListArtifacts(const TenantFolder& output,
                                                      std::string_view under, bool digests) {
  Walk walk;
  walk.digests = digests;
  walk.owner = output.owner();
  if (under.empty()) {
    const int fd = dup(output.fd());
    if (fd < 0) return NotThere(".");
    DLP_RETURN_IF_ERROR(ListDir(fd, "", 0, walk));
    return walk.found;
  }
  DLP_RETURN_IF_ERROR(ValidateArtifactPath(under));
  absl::StatusOr<OwnedFd> opened = OpenBeneath(output.fd(), under, O_RDONLY);
  if (!opened.ok()) return NotThere(under);
  struct stat st;
  if (fstat(opened->get(), &st) != 0 || st.st_uid != walk.owner) return NotThere(under);
  if (S_ISDIR(st.st_mode)) {
    const int fd = dup(opened->get());
    if (fd < 0) return NotThere(under);
    DLP_RETURN_IF_ERROR(ListDir(fd, std::string(under), 1, walk));
    return walk.found;
  }
  if (!S_ISREG(st.st_mode)) return NotThere(under);
  OutputFile a{std::string(under), static_cast<int64_t>(st.st_size), "", MtimeOf(st)};
  if (digests) {
    DLP_ASSIGN_OR_RETURN(a.sha256, Sha256OfFd(opened->get()));
  }
  walk.found.push_back(std::move(a));
  return walk.found;
}

absl::StatusOr<TenantFolder> OpenOwnFolder(const std::string& dir) {
  OwnedFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return absl::NotFoundError(absl::StrCat("no folder ", dir));
  return TenantFolder::FromFd(std::move(fd));
}

absl::Status StreamFile(int fd, const std::function<bool(std::string_view)>& sink) {
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("read: ", std::strerror(errno)));
    if (n == 0 || !sink(std::string_view(buf, static_cast<size_t>(n)))) return absl::OkStatus();
  }
}

}  // namespace dlp::contract
