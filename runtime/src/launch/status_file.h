// The status file of docs/runtime-contract.md, rewritten atomically (temporary
// file, then rename) so that a reader never sees half a document.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace dlp::launch {

struct ReplicaStatus {
  std::string name, role;
  int index = 0, rank = 0;
  std::string host;
  int pid = 0, pgid = 0;
  std::string state = "Starting";  // Starting, Running, Succeeded, Failed
  std::optional<int> exit_code, signal;
};

struct GroupStatus {
  int pid = 0;
  std::string state = "Starting";
  int restarts = 0;
  std::string reason;
  std::vector<ReplicaStatus> replicas;
};

std::string StatusJson(const GroupStatus& status);

// Writes only when the document changed since the last call.
class StatusFileWriter {
 public:
  explicit StatusFileWriter(std::string path) : path_(std::move(path)) {}
  absl::Status Write(const GroupStatus& status);

 private:
  std::string path_;
  std::string last_;
};

}  // namespace dlp::launch
