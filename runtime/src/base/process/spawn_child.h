// The child's side of Spawn (spawn.h): the plan the parent prepares, and what
// the child does with it between fork and exec.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include "base/process/spawn.h"

namespace dlp::base::internal {

// A step of the child before exec; the one that failed goes to the parent.
enum class ChildStep : int {
  kGrouping,
  kCgroup,
  kSetgroups,
  kSetgid,
  kSetuid,
  kCapabilities,
  kWorkdir,
  kCpus,
  kStdin,
  kStdout,
  kStderr,
  kFork,  // of the detached program, by the intermediate child
  kExec,
};

// What a child writes to the report pipe: the detached program's pid (from
// the intermediate child), or the step that failed and its errno.
struct ChildReport {
  enum Kind : int { kPid, kFailure } kind;
  ChildStep step;
  int value;
};

// Everything the child reads, prepared by the parent: after fork, nothing is
// allocated.
struct ChildPlan {
  Grouping grouping;
  const int* cgroup_fds;
  size_t cgroup_count;
  const Credentials* run_as;  // null: stay this process's user
  const char* run_as_workdir;
  const char* workdir;    // null: stay
  const cpu_set_t* cpus;  // null: stay
  Stream streams[3];
  int pipe_fds[3];          // the child's ends of kPipe streams, else -1
  const char* output_path;  // for kFile
  bool close_other_fds;
  bool detach;
  int report_fd;  // above 2, close-on-exec
  const char* file;
  char* const* argv;
  char* const* envp;
};

// fork (copy) or vfork, then the plan in the child; the child's pid, or -1
// with errno. Signals must be blocked by the caller: the child resets their
// handlers before it unblocks them.
pid_t StartChild(const ChildPlan& plan, bool copy);

}  // namespace dlp::base::internal
