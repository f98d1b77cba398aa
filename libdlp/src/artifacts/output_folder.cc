#include "artifacts/output_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/sha256.h"
#include "common/string_view_compat.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

constexpr int kMaxDepth = 32;

absl::Time MtimeOf(const struct stat& st) {
  return absl::FromUnixSeconds(st.st_mtim.tv_sec) + absl::Nanoseconds(st.st_mtim.tv_nsec);
}

absl::Status NotThere(std::string_view path) {
  return absl::NotFoundError(absl::StrCat("no artifact \"", ToAbsl(path),
                                          "\" (not a regular file in the job's output folder)"));
}

// Opens `path` (validated) under the folder `root`, every component with
// O_NOFOLLOW; the last one with `last_flags`.
absl::StatusOr<OwnedFd> WalkOpen(const std::string& root, std::string_view path, int last_flags) {
  OwnedFd dir(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return NotThere(path);
  std::vector<std::string> parts = absl::StrSplit(ToAbsl(path), '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const int flags = (last ? last_flags : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC;
    OwnedFd next(openat(dir.get(), parts[i].c_str(), flags));
    if (next.get() < 0) return NotThere(path);  // ELOOP: a symbolic link
    dir = std::move(next);
  }
  return dir;
}

struct Walk {
  std::vector<Artifact> found;
  bool digests = false;
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
    } else if (S_ISREG(st.st_mode) && rel.size() <= kMaxArtifactPath) {
      if (walk.found.size() >= kMaxArtifactsListed) {
        status = absl::ResourceExhaustedError(absl::StrCat("the output folder holds more than ",
                                                           kMaxArtifactsListed,
                                                           " files; name a sub-folder"));
      } else {
        Artifact a{rel, static_cast<int64_t>(st.st_size), "", MtimeOf(st)};
        if (walk.digests) {
          OwnedFd fd(openat(dirfd(dir), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
          if (fd.get() < 0) continue;
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

absl::Status ValidateArtifactPath(std::string_view path) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("artifact path \"", ToAbsl(path.substr(0, 200)), "\": ", why));
  };
  if (path.empty()) return bad("empty");
  if (path.size() > kMaxArtifactPath) return bad(absl::StrCat("longer than ", kMaxArtifactPath));
  if (path.front() == '/') return bad("must be relative to the output folder");
  if (path.find('\0') != std::string_view::npos) return bad("contains a NUL byte");
  for (absl::string_view part : absl::StrSplit(ToAbsl(path), '/')) {
    if (part.empty()) return bad("has an empty component");
    if (part == "." || part == "..") return bad("may not contain \".\" or \"..\"");
  }
  return absl::OkStatus();
}

absl::StatusOr<OpenedArtifact> OpenArtifact(const std::string& output_dir, std::string_view path) {
  DLP_RETURN_IF_ERROR(ValidateArtifactPath(path));
  DLP_ASSIGN_OR_RETURN(OwnedFd fd, WalkOpen(output_dir, path, O_RDONLY | O_NONBLOCK));
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return NotThere(path);
  // O_NONBLOCK only kept a FIFO from blocking the open.
  fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return OpenedArtifact{std::move(fd), static_cast<int64_t>(st.st_size), MtimeOf(st)};
}

absl::StatusOr<std::vector<Artifact>> ListArtifacts(const std::string& output_dir,
                                                    std::string_view under, bool digests) {
  Walk walk;
  walk.digests = digests;
  if (under.empty()) {
    const int fd = open(output_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return walk.found;  // the job has not started
    DLP_RETURN_IF_ERROR(ListDir(fd, "", 0, walk));
    return walk.found;
  }
  DLP_RETURN_IF_ERROR(ValidateArtifactPath(under));
  absl::StatusOr<OwnedFd> opened = WalkOpen(output_dir, under, O_RDONLY | O_NONBLOCK);
  if (!opened.ok()) return opened.status();
  struct stat st;
  if (fstat(opened->get(), &st) != 0) return NotThere(under);
  if (S_ISDIR(st.st_mode)) {
    const int fd = dup(opened->get());
    if (fd < 0) return NotThere(under);
    DLP_RETURN_IF_ERROR(ListDir(fd, std::string(under), 1, walk));
    return walk.found;
  }
  if (!S_ISREG(st.st_mode)) return NotThere(under);
  Artifact a{std::string(under), static_cast<int64_t>(st.st_size), "", MtimeOf(st)};
  if (digests) {
    fcntl(opened->get(), F_SETFL, fcntl(opened->get(), F_GETFL) & ~O_NONBLOCK);
    DLP_ASSIGN_OR_RETURN(a.sha256, Sha256OfFd(opened->get()));
  }
  walk.found.push_back(std::move(a));
  return walk.found;
}

absl::Status StreamFile(int fd, const ByteSink& sink) {
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("read: ", std::strerror(errno)));
    if (n == 0 || !sink(std::string_view(buf, static_cast<size_t>(n)))) return absl::OkStatus();
  }
}

}  // namespace dlp::internal
