#include "base/process/spawn_child.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace dlp::base::internal {
namespace {

[[noreturn]] void Fail(const ChildPlan& plan, ChildStep step) {
  ChildReport report{ChildReport::kFailure, step, errno};
  (void)!write(plan.report_fd, &report, sizeof(report));
  _exit(127);
}

bool WriteDecimal(int fd, pid_t value) {
  char text[24];
  int n = sizeof(text);
  do {
    text[--n] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  return write(fd, text + n, sizeof(text) - n) == static_cast<ssize_t>(sizeof(text) - n);
}

// No handler of the parent may run here (a vfork child shares its memory),
// and a program starts with every signal at its default, none blocked.
void ResetSignals() {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Groups, gid, uid, in that order, then no capability left: a parent that is
// not root but holds capabilities keeps them across setuid, and ambient ones
// even across exec. Only a full switch is a switch: root must not be regained.
void SwitchUser(const ChildPlan& plan) {
  const Credentials& a = *plan.run_as;
  if (setgroups(a.groups.size(), a.groups.data()) != 0) Fail(plan, ChildStep::kSetgroups);
  if (setgid(a.gid) != 0) Fail(plan, ChildStep::kSetgid);
  if (setuid(a.uid) != 0) Fail(plan, ChildStep::kSetuid);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct no_caps[_LINUX_CAPABILITY_U32S_3] = {};
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    Fail(plan, ChildStep::kCapabilities);
  }
  if (syscall(SYS_capset, &header, no_caps) != 0) Fail(plan, ChildStep::kCapabilities);
  if (setuid(0) == 0) Fail(plan, ChildStep::kSetuid);
  if (chdir(plan.run_as_workdir) != 0) (void)!chdir("/");
}

// Points descriptor `target` (0, 1 or 2) where `stream` says.
void Redirect(const ChildPlan& plan, int target, ChildStep step) {
  const Stream stream = plan.streams[target];
  int fd = -1;
  switch (stream) {
    case Stream::kInherit:
      return;
    case Stream::kNull:
      fd = open("/dev/null", (target == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      break;
    case Stream::kPipe:
      fd = plan.pipe_fds[target];
      break;
    case Stream::kFile:
      fd = open(plan.output_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
      break;
    case Stream::kStdout:
      fd = 1;
      break;
  }
  if (fd < 0 || dup2(fd, target) < 0) Fail(plan, step);
}

[[noreturn]] void RunChild(const ChildPlan& plan) {
  if (plan.detach) {
    // The intermediate child: a new session, the program, its pid, gone.
    setsid();
    const pid_t program = fork();
    if (program < 0) Fail(plan, ChildStep::kFork);
    if (program > 0) {
      ChildReport report{ChildReport::kPid, ChildStep::kFork, program};
      (void)!write(plan.report_fd, &report, sizeof(report));
      _exit(0);
    }
  } else if (plan.grouping == Grouping::kSession) {
    if (setsid() < 0) Fail(plan, ChildStep::kGrouping);
  } else if (plan.grouping == Grouping::kProcessGroup) {
    if (setpgid(0, 0) != 0) Fail(plan, ChildStep::kGrouping);
  }
  ResetSignals();
  for (size_t i = 0; i < plan.cgroup_count; ++i) {
    if (!WriteDecimal(plan.cgroup_fds[i], getpid())) Fail(plan, ChildStep::kCgroup);
  }
  if (plan.run_as != nullptr) SwitchUser(plan);
  if (plan.workdir != nullptr && chdir(plan.workdir) != 0) Fail(plan, ChildStep::kWorkdir);
  if (plan.cpus != nullptr && sched_setaffinity(0, sizeof(*plan.cpus), plan.cpus) != 0) {
    Fail(plan, ChildStep::kCpus);
  }
  Redirect(plan, 0, ChildStep::kStdin);
  Redirect(plan, 1, ChildStep::kStdout);
  Redirect(plan, 2, ChildStep::kStderr);
  if (plan.close_other_fds) {
    // The parent's lock, database and sockets must not outlive it in the program.
    if (plan.report_fd > 3) close_range(3, plan.report_fd - 1, 0);
    close_range(plan.report_fd + 1, ~0U, 0);
  }
  execve(plan.file, plan.argv, plan.envp);
  Fail(plan, ChildStep::kExec);
}

}  // namespace

// Apart, so that nothing of the caller's frame lives across vfork.
[[gnu::noinline]] pid_t StartChild(const ChildPlan& plan, bool copy) {
  const pid_t pid = copy ? fork() : vfork();
  if (pid == 0) RunChild(plan);
  return pid;
}

}  // namespace dlp::base::internal
