// Reading a job's output folder (DLP_OUTPUT_DIR) without ever leaving it: dlpd
// serves it to clients, the Slurm backend reads it from the shared folder, the
// model registry copies from it. Every path is walked one component at a time
// with openat(O_NOFOLLOW) from the folder's own descriptor, so `..`, absolute
// paths and symbolic links (a job may plant one to /etc/shadow) are refused
// rather than followed, whoever runs the reader. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/artifacts.h"
#include "dlp/backend.h"

namespace dlp::internal {

// Owns a file descriptor; closes it on destruction.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd();
  OwnedFd(OwnedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

inline constexpr size_t kMaxArtifactPath = 1024;
inline constexpr size_t kMaxArtifactsListed = 10000;

// OK for a relative path of 1-1024 bytes whose components are neither empty,
// "." nor ".." (no leading '/', no "//", no NUL). InvalidArgument naming why.
absl::Status ValidateArtifactPath(std::string_view path);

// A regular file under `output_dir`, open for reading, and its size.
// InvalidArgument for a bad path; NotFound when it is missing, is a symbolic
// link, or is not a regular file (a job's folder says nothing more).
struct OpenedArtifact {
  OwnedFd fd;
  int64_t size = 0;
  absl::Time mtime;
};
absl::StatusOr<OpenedArtifact> OpenArtifact(const std::string& output_dir, std::string_view path);

// The regular files under `output_dir` (or under its sub-path `under` when
// not empty, which may also name one file), sorted by path, with their SHA-256
// when `digests`. Symbolic links are skipped; a missing folder has none.
// ResourceExhausted past kMaxArtifactsListed files.
absl::StatusOr<std::vector<Artifact>> ListArtifacts(const std::string& output_dir,
                                                    std::string_view under, bool digests);

// Reads `fd` from its offset to its end into `sink` (stopping when it
// returns false). Internal error naming errno when a read fails.
absl::Status StreamFile(int fd, const ByteSink& sink);

}  // namespace dlp::internal
