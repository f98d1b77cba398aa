// Starts one rank's process: fork, a new process group (so that the whole
// tree can be signalled at once), the given environment and working folder,
// stdout/stderr through pipes, then exec.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::launch {

struct SpawnRequest {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // the full environment of the child
  std::string workdir;                     // empty: inherit
  bool capture_output = true;              // false: inherit fds 1 and 2
  bool stdin_pipe = false;                 // true: in_fd is the write end of its stdin
  std::vector<int> cpus;                   // empty: this process's CPU affinity
};

struct Child {
  pid_t pid = -1;  // also its process group id
  int out_fd = -1;
  int err_fd = -1;
  int in_fd = -1;
};

// The environment of this process as a map.
std::map<std::string, std::string> CurrentEnvironment();

// Returns once the child has exec'd. An executable that cannot be run (not
// found, no permission, bad workdir) is NotFound/FailedPrecondition with the
// reason; the child is reaped in that case. The fds are non-blocking and CLOEXEC.
absl::StatusOr<Child> Spawn(const SpawnRequest& request);

}  // namespace dlp::launch
