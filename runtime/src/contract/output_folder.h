// Reading a job's output folder (DLP_OUTPUT_DIR) without ever leaving it: dlpd
// serves it to clients, the Slurm backend reads it from the shared folder, the
// model registry copies from it. The folder is a TenantFolder (tenant_files.h), opened
// from a folder the reader trusts: `..`, absolute paths, symbolic links at any
// level (a job may plant one to /etc/shadow, or make the output folder itself
// one to /) and other users' files are refused rather than followed, whoever
// runs the reader. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/tenant_files.h"

namespace dlp::contract {

inline constexpr size_t kMaxArtifactPath = 1024;
inline constexpr size_t kMaxArtifactsListed = 10000;

// OK for a relative path of 1-1024 bytes whose components are neither empty,
// "." nor ".." (no leading '/', no "//", no NUL). InvalidArgument naming why.
absl::Status ValidateArtifactPath(std::string_view path);

// A regular file under `output`, open for reading, and its size.
// InvalidArgument for a bad path; NotFound when it is missing, is a symbolic
// link, or is not a regular file of the folder's owner (a job's folder says
// nothing more).
struct OpenedArtifact {
  OwnedFd fd;
  int64_t size = 0;
  absl::Time mtime;
};
absl::StatusOr<OpenedArtifact> OpenArtifact(const TenantFolder& output, std::string_view path);

// A file of the output folder as listed (libdlp's dlp::Artifact has the same
// members, in the public API).
struct OutputFile {
  std::string path;    // relative to the output folder: "model.ckpt", "epochs/1.json"
  int64_t size = 0;    // bytes
  std::string sha256;  // 64 lowercase hex digits; empty when not asked for
  absl::Time mtime;
};

// The regular files of the folder's owner under `output` (or under its
// sub-path `under` when not empty, which may also name one file), sorted by
// path, with their SHA-256 when `digests`. Links and other users' files are
// skipped. ResourceExhausted past kMaxArtifactsListed files.
absl::StatusOr<std::vector<OutputFile>> ListArtifacts(const TenantFolder& output,
                                                      std::string_view under, bool digests);

// The folder `dir` that the caller trusts as its own (the Slurm backend's
// shared job folder, the blob store): its owner's files are read. NotFound
// when it does not exist.
absl::StatusOr<TenantFolder> OpenOwnFolder(const std::string& dir);

// Reads `fd` from its offset to its end into `sink` (stopping when it
// returns false). Internal error naming errno when a read fails.
absl::Status StreamFile(int fd, const std::function<bool(std::string_view)>& sink);

}  // namespace dlp::contract
