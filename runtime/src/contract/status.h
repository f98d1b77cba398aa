// The status file (docs/runtime-contract.md, "Status file"): dlp-run rewrites
// it atomically at every change; dlpd's executor reads it. Its one codec.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/tenant_files.h"

namespace dlp::contract {

// States of the group and of each rank.
inline constexpr std::string_view kStarting = "Starting";
inline constexpr std::string_view kRunning = "Running";
inline constexpr std::string_view kSucceeded = "Succeeded";
inline constexpr std::string_view kFailed = "Failed";

// One rank (one replica of a role) as dlp-run last saw it.
struct RankStatus {
  std::string name, role;  // "worker-1", "worker"
  int index = 0, rank = 0;
  std::string host;
  int64_t pid = 0, pgid = 0;
  std::string state = std::string(kStarting);
  std::optional<int> exit_code, signal;
  // Why it ended, where its exit code alone does not say: "could not start:
  // cannot execute train.py: No such file or directory". Empty otherwise.
  std::string reason;

  bool operator==(const RankStatus&) const = default;
};

struct GroupStatus {
  int64_t pid = 0;  // dlp-run's
  std::string state = std::string(kStarting);
  int restarts = 0;
  std::string reason;
  std::vector<RankStatus> replicas;

  bool terminal() const { return state == kSucceeded || state == kFailed; }
  bool operator==(const GroupStatus&) const = default;
};

// How a rank ended, for a group's reason: "rank 1 (worker-1) on host n2 exited
// with code 3", "... was killed by signal 9 (Killed)", "... could not start:
// ..." (its own reason), or "... is still running".
std::string DescribeRankEnd(const RankStatus& r);

std::string StatusToJson(const GroupStatus& status);
// InvalidArgument naming `source` and the field that is wrong.
absl::StatusOr<GroupStatus> ParseStatusJson(std::string_view text, const std::string& source);
// Under dlpd the job's account owns the folder, so the file is whatever it put
// there: only a regular file is read, not through a link, and at most this much
// (a status of kMaxReplicas replicas is a few hundred KiB).
inline constexpr size_t kMaxStatusFileBytes = 4 << 20;
// nullopt while the file does not exist yet; an error when it is not a regular
// file of the folder's owner, is longer than kMaxStatusFileBytes or does not
// parse.
absl::StatusOr<std::optional<GroupStatus>> ReadStatusFile(const TenantFolder& folder,
                                                          std::string_view name);
// The same, for a status file in a folder the caller trusts as its own.
absl::StatusOr<std::optional<GroupStatus>> ReadStatusFile(const std::string& path);

// Rewrites a status file atomically, only when the document changed since the
// last call. An empty path writes nothing. Not thread-safe.
class StatusFileWriter {
 public:
  explicit StatusFileWriter(std::string path) : path_(std::move(path)) {}
  absl::Status Write(const GroupStatus& status);

 private:
  std::string path_;
  std::string last_;
};

}  // namespace dlp::contract
