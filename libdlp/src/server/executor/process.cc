#include "server/executor/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/proc/proc_file.h"

extern char** environ;

namespace dlp::server {


std::map<std::string, pid_t> ProcessesByArgument(const std::string& flag) {
  // value -> (pid -> parent) of every process that carries it
  std::map<std::string, std::map<pid_t, pid_t>> carriers;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return {};
  while (const dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    absl::StatusOr<std::string> cmdline = ReadProcFile(ProcPath(pid, "cmdline"));
    if (!cmdline.ok()) continue;  // exited meanwhile
    std::vector<std::string> args = absl::StrSplit(*cmdline, '\0');
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] != flag) continue;
      if (std::optional<ProcStat> stat = ReadProcStat(pid))
        carriers[args[i + 1]][pid] = stat->parent;
    }
  }
  closedir(dir);
  // A process forked by the runner carries its command line until it executes
  // something else (dlp-run between fork and exec of a rank): the runner is
  // the one whose parent does not carry the same value.
  std::map<std::string, pid_t> found;
  for (const auto& [value, pids] : carriers) {
    for (const auto& [pid, parent] : pids) {
      if (!pids.contains(parent)) found[value] = pid;
    }
  }
  return found;
}

std::optional<int64_t> ProcessStartTime(pid_t pid) {
  std::optional<ProcStat> stat = ReadProcStat(pid);
  if (!stat) return std::nullopt;
  return stat->start_time;
}

bool SameProcessAlive(pid_t pid, int64_t start_time) {
  std::optional<int64_t> actual = ProcessStartTime(pid);
  return actual && *actual == start_time;
}

std::optional<pid_t> RootOf(const std::vector<pid_t>& pids) {
  std::optional<pid_t> root;
  for (pid_t pid : pids) {
    std::optional<ProcStat> stat = ReadProcStat(pid);
    if (!stat || std::find(pids.begin(), pids.end(), stat->parent) != pids.end()) continue;
    if (root) return std::nullopt;
    root = pid;
  }
  return root;
}

void SignalGroup(pid_t pgid, int signo) {
  if (pgid > 1) kill(-pgid, signo);
}

namespace {

// A failed step in the child before exec, sent to the parent through a pipe.
enum class ChildStep : int {
  kCgroup,
  kStdin,
  kSetgroups,
  kSetgid,
  kSetuid,
  kCapabilities,
  kOutput,
  kExec
};
struct ChildFailure {
  ChildStep step;
  int error;
};

std::string Describe(ChildFailure f, const SpawnOptions& options) {
  const std::string user = options.run_as ? options.run_as->name : "";
  switch (f.step) {
    case ChildStep::kCgroup:
      return absl::StrCat("cannot join the job's cgroup: ", strerror(f.error));
    case ChildStep::kStdin:
      return absl::StrCat("cannot open /dev/null: ", strerror(f.error));
    case ChildStep::kSetgroups:
      return absl::StrCat("cannot take the groups of ", user, ": ", strerror(f.error));
    case ChildStep::kSetgid:
      return absl::StrCat("cannot take the group id of ", user, ": ", strerror(f.error));
    case ChildStep::kSetuid:
      return absl::StrCat("cannot switch to user ", user, ": ", strerror(f.error));
    case ChildStep::kCapabilities:
      return absl::StrCat("cannot drop dlpd's capabilities for ", user, ": ", strerror(f.error));
    case ChildStep::kOutput:
      return absl::StrCat("cannot open ", options.output_path, ": ", strerror(f.error));
    case ChildStep::kExec:
      return absl::StrCat("cannot start ", options.argv[0], ": ", strerror(f.error));
  }
  return "cannot start";
}

// In the child between fork and exec only async-signal-safe calls are made:
// everything that allocates was prepared by the parent.
[[noreturn]] void ChildFail(int report_fd, ChildStep step) {
  ChildFailure f{step, errno};
  (void)!write(report_fd, &f, sizeof(f));
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

// What the child needs between fork and exec, all prepared by the parent.
struct ChildPlan {
  const std::vector<int>* cgroup_fds;
  int report_fd;
  const UnixAccount* run_as;  // null: stay dlpd's user
  const char* workdir;        // with run_as
  const char* output_path;
  char* const* argv;
  char* const* envp;
};

[[noreturn]] void RunChild(const ChildPlan& plan) {
  setsid();
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT}) sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int fd : *plan.cgroup_fds) {
    if (!WriteDecimal(fd, getpid())) ChildFail(plan.report_fd, ChildStep::kCgroup);
  }
  int in = open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, 0) < 0) ChildFail(plan.report_fd, ChildStep::kStdin);
  if (plan.run_as) {
    const UnixAccount& a = *plan.run_as;
    if (setgroups(a.groups.size(), a.groups.data()) != 0) {
      ChildFail(plan.report_fd, ChildStep::kSetgroups);
    }
    if (setgid(a.gid) != 0) ChildFail(plan.report_fd, ChildStep::kSetgid);
    if (setuid(a.uid) != 0) ChildFail(plan.report_fd, ChildStep::kSetuid);
    // A dlpd that is not root but holds capabilities keeps them across
    // setuid, and ambient ones even across exec: drop them all.
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct no_caps[_LINUX_CAPABILITY_U32S_3] = {};
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
      ChildFail(plan.report_fd, ChildStep::kCapabilities);
    }
    if (syscall(SYS_capset, &header, no_caps) != 0) {
      ChildFail(plan.report_fd, ChildStep::kCapabilities);
    }
    // Only a full switch is a switch: root must not be regained.
    if (setuid(0) == 0) ChildFail(plan.report_fd, ChildStep::kSetuid);
    if (chdir(plan.workdir) != 0) (void)!chdir("/");
  }
  int out = open(plan.output_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
  if (out < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
    ChildFail(plan.report_fd, ChildStep::kOutput);
  // The daemon's lock, database and sockets must not outlive it in the job.
  if (plan.report_fd > 3) close_range(3, plan.report_fd - 1, 0);
  close_range(plan.report_fd + 1, ~0U, 0);
  execve(plan.argv[0], plan.argv, plan.envp);
  ChildFail(plan.report_fd, ChildStep::kExec);
}

// fork (copy) or vfork, then RunChild in the child; the child's pid or -1.
// Apart so that nothing of the caller's frame lives across vfork.
[[gnu::noinline]] pid_t StartChild(const ChildPlan& plan, bool copy) {
  const pid_t pid = copy ? fork() : vfork();
  if (pid == 0) RunChild(plan);
  return pid;
}

}  // namespace

absl::StatusOr<pid_t> SpawnDetached(const SpawnOptions& options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("empty command");
  std::map<std::string, std::string> env;
  for (char** e = options.inherit_environment ? environ : nullptr; e != nullptr && *e != nullptr;
       ++e) {
    absl::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq != absl::string_view::npos) {
      env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
    }
  }
  for (const auto& [k, v] : options.extra_env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const char* const workdir =
      !options.run_as ? nullptr
      : !options.run_as->home.empty() && access(options.run_as->home.c_str(), F_OK) == 0
          ? options.run_as->home.c_str()
          : "/";

  std::vector<int> cgroup_fds;
  auto close_all = [&cgroup_fds] {
    for (int fd : cgroup_fds) close(fd);
  };
  for (const std::string& procs : options.cgroup_procs) {
    int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      close_all();
      return absl::InternalError(absl::StrCat("cannot open ", procs, ": ", strerror(err)));
    }
    cgroup_fds.push_back(fd);
  }
  // The report pipe stays above 0-2, which the child replaces.
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    close_all();
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  int report_fd = fcntl(pipe_fds[1], F_DUPFD_CLOEXEC, 3);
  close(pipe_fds[1]);
  if (report_fd < 0) {
    close(pipe_fds[0]);
    close_all();
    return absl::InternalError(absl::StrCat("fcntl: ", strerror(errno)));
  }

  // Without an account to switch to, vfork: dlpd's address space is not
  // copied for each runner (page tables, copy-on-write faults), and the child
  // below only makes system calls on memory prepared above. setuid and
  // friends broadcast to every thread of a process in glibc, which a child
  // sharing dlpd's memory must not do: a tenant's job is forked. Signals stay
  // blocked until the child has reset its handlers, so none of dlpd's runs in
  // a child that shares its memory.
  sigset_t all, old_mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_mask);
  ChildPlan plan{&cgroup_fds,
                 report_fd,
                 options.run_as ? &*options.run_as : nullptr,
                 workdir,
                 options.output_path.c_str(),
                 argv.data(),
                 envp.data()};
  const pid_t pid = StartChild(plan, /*copy=*/options.run_as.has_value());
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  close(report_fd);
  close_all();
  if (pid < 0) {
    close(pipe_fds[0]);
    return absl::InternalError(
        absl::StrCat("cannot start ", options.argv[0], ": fork: ", strerror(fork_error)));
  }
  ChildFailure failure;
  ssize_t n;
  while ((n = read(pipe_fds[0], &failure, sizeof(failure))) < 0 && errno == EINTR) {
  }
  close(pipe_fds[0]);
  if (n == static_cast<ssize_t>(sizeof(failure))) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return absl::InternalError(Describe(failure, options));
  }
  return pid;
}

}  // namespace dlp::server
