// Starting a program: the one way dlp's programs start another (dlp-run's
// ranks, dlpd's runners, the Slurm tools, xdg-open, a background dlpd).
// fork or vfork, then in the child only async-signal-safe calls on memory the
// parent prepared, then execve; a step that fails in the child comes back to
// the parent through a close-on-exec pipe as the error of Spawn.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::base {

// Where one of the child's standard streams goes.
enum class Stream {
  kInherit,  // this process's
  kNull,     // /dev/null
  kPipe,     // a pipe whose other end SpawnedProcess holds
  kFile,     // appended to SpawnOptions::output_path (see there)
  kStdout,   // stderr only: wherever stdout goes
};

// The account a child switches to before it opens a file or executes.
struct Credentials {
  std::string name;  // for messages
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups, the primary one included
  std::string workdir;        // entered after the switch; "/" when it cannot be
};

// What the child leads.
enum class Grouping {
  kInherit,       // this process's process group and session
  kProcessGroup,  // a new process group, its pid, so that kill(-pid) reaches its tree
  kSession,       // a new session (setsid): no controlling terminal
};

struct SpawnOptions {
  std::vector<std::string> argv;
  // Added to this process's environment, or (inherit_environment false) all of it.
  std::map<std::string, std::string> env;
  bool inherit_environment = true;
  // argv[0] without a '/' is looked up in the PATH of the child's environment.
  bool search_path = true;
  std::string workdir;  // entered before exec; empty: this process's (or run_as's)
  Stream stdin_stream = Stream::kNull;
  Stream stdout_stream = Stream::kInherit;
  Stream stderr_stream = Stream::kInherit;
  // For Stream::kFile: opened by the child, after any switch to run_as, with
  // O_APPEND|O_CREAT|O_NOFOLLOW and mode 0600.
  std::string output_path;
  Grouping grouping = Grouping::kInherit;
  std::vector<int> cpus;                  // the child's CPU affinity; empty: this process's
  std::vector<std::string> cgroup_procs;  // cgroup.procs files the child joins first
  std::optional<Credentials> run_as;      // set: groups, gid, uid, no capabilities
  bool close_other_fds = false;           // close every descriptor above 2 before exec
  // The program is not this process's child: an intermediate child in a new
  // session starts it and exits (a daemon that outlives its starter).
  bool detach = false;
};

struct SpawnedProcess {
  pid_t pid = -1;  // with Grouping::kProcessGroup or kSession, also its group id
  // This process's ends of the Stream::kPipe streams (non-blocking,
  // close-on-exec), else -1. The caller closes them.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// Starts options.argv and returns once the child has executed it. Errors name
// the program and the step: NotFound when it cannot be executed (not found,
// not executable), FailedPrecondition for a working folder it cannot enter or
// CPUs it cannot be bound to, InvalidArgument for bad options, Internal for
// the rest (a cgroup, the switch of user, a file, fork). A child that failed
// has been reaped. Thread-safe.
absl::StatusOr<SpawnedProcess> Spawn(const SpawnOptions& options);

// waitpid(pid) until it returns, retrying on EINTR; the wait status, or -1.
int WaitForExit(pid_t pid);

// The environment of this process as a map.
std::map<std::string, std::string> CurrentEnvironment();

}  // namespace dlp::base
