// Process helpers for the executor: identity of a process across daemon
// restarts (pid + start time), signalling process groups, spawning dlp-run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/executor/run_as.h"

namespace dlp::server {

// The start time of `pid` (field 22 of /proc/PID/stat, clock ticks since boot);
// nullopt when no such process exists or it is a zombie.
std::optional<int64_t> ProcessStartTime(pid_t pid);

// True when `pid` runs and is the same process that had `start_time`.
bool SameProcessAlive(pid_t pid, int64_t start_time);

// Live processes whose command line holds `flag` followed by a value (dlp-run
// started with `--status-file PATH`), by that value; one scan of /proc. Of
// several with one value (a runner and a child it forked that has not yet
// executed its command), the one whose parent does not carry the value.
std::map<std::string, pid_t> ProcessesByArgument(const std::string& flag);

// Of `pids`, the live one whose parent is not among them (the first of a
// process tree, not what it forked); nullopt unless there is exactly one.
std::optional<pid_t> RootOf(const std::vector<pid_t>& pids);

// kill(-pgid, signo) for a positive pgid; ignores groups that are gone.
void SignalGroup(pid_t pgid, int signo);

struct SpawnOptions {
  std::vector<std::string> argv;
  std::map<std::string, std::string> extra_env;  // on top of dlpd's environment
  bool inherit_environment = true;               // false: extra_env is all of it
  std::string output_path;                       // stdout and stderr, appended
  // Set: the child takes the account's groups, gid and uid (in that order),
  // then opens output_path and starts in its home folder ("/" if none).
  std::optional<UnixAccount> run_as;
  std::vector<std::string> cgroup_procs;  // cgroup.procs files the child joins first
};

// Starts argv[0] (a path) in a new session with default signal dispositions and
// no inherited descriptors beyond 0-2, stdin /dev/null (base::Spawn). Returns
// its pid, or an error naming the step that failed in the child (joining a
// cgroup, switching user, opening output_path, exec).
absl::StatusOr<pid_t> SpawnDetached(const SpawnOptions& options);

}  // namespace dlp::server
