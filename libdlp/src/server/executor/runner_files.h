// The files between dlpd and dlp-run (docs/runtime-contract.md): the group
// file dlpd writes and the status file dlp-run rewrites at every change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/job.h"

namespace dlp::server {

// The group file for `spec` (JSON text).
std::string GroupFileJson(const JobSpec& spec);

struct RunnerReplica {
  std::string name, role, host;
  int index = 0, rank = 0;
  int64_t pid = 0, pgid = 0;
  std::string state;  // Starting, Running, Succeeded, Failed
  std::optional<int> exit_code, signal;
};

struct RunnerStatus {
  int64_t pid = 0;
  std::string state;  // Starting, Running, Succeeded, Failed
  int restarts = 0;
  std::string reason;
  std::vector<RunnerReplica> replicas;

  bool terminal() const { return state == "Succeeded" || state == "Failed"; }
};

// Parses a status file's text. InvalidArgument on malformed JSON.
absl::StatusOr<RunnerStatus> ParseRunnerStatus(absl::string_view json);
// Reads and parses `path`; nullopt when the file does not exist yet.
absl::StatusOr<std::optional<RunnerStatus>> ReadRunnerStatus(const std::string& path);

// Writes `contents` to `path` atomically (temporary file, fsync, rename) with `mode`.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents,
                                 int mode = 0600);

}  // namespace dlp::server
