#include "base/process/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/process/cpu_set.h"
#include "base/process/find_program.h"
#include "base/process/spawn_child.h"

extern char** environ;

namespace dlp::base {
namespace {

using internal::ChildPlan;
using internal::ChildReport;
using internal::ChildStep;

constexpr char kDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

// Descriptors this call opened, closed on every way out unless released.
class Fds {
 public:
  ~Fds() {
    for (int fd : fds_) close(fd);
  }
  // `fd` kept above 0-2, which the child replaces; -1 on failure.
  int Add(int fd) {
    if (fd >= 0 && fd <= 2) {
      const int above = fcntl(fd, F_DUPFD_CLOEXEC, 3);
      close(fd);
      fd = above;
    }
    if (fd >= 0) fds_.push_back(fd);
    return fd;
  }
  void Close(int fd) {
    for (size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] == fd) {
        close(fd);
        fds_.erase(fds_.begin() + static_cast<long>(i));
        return;
      }
    }
  }
  int Release(int fd) {
    for (size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] == fd) fds_.erase(fds_.begin() + static_cast<long>(i));
    }
    return fd;
  }

 private:
  std::vector<int> fds_;
};

absl::Status Errno(absl::string_view what, int err) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(err)));
}

absl::Status Describe(const ChildReport& r, const SpawnOptions& options) {
  const std::string& program = options.argv[0];
  const std::string user = options.run_as ? options.run_as->name : "";
  const char* why = std::strerror(r.value);
  switch (r.step) {
    case ChildStep::kGrouping:
      return absl::InternalError(absl::StrCat("cannot start ", program, " in a new group: ", why));
    case ChildStep::kCgroup:
      return absl::InternalError(absl::StrCat("cannot join the job's cgroup: ", why));
    case ChildStep::kSetgroups:
      return absl::InternalError(absl::StrCat("cannot take the groups of ", user, ": ", why));
    case ChildStep::kSetgid:
      return absl::InternalError(absl::StrCat("cannot take the group id of ", user, ": ", why));
    case ChildStep::kSetuid:
      return absl::InternalError(absl::StrCat("cannot switch to user ", user, ": ", why));
    case ChildStep::kCapabilities:
      return absl::InternalError(
          absl::StrCat("cannot drop the capabilities of this process for ", user, ": ", why));
    case ChildStep::kWorkdir:
      return absl::FailedPreconditionError(
          absl::StrCat("cannot enter working directory ", options.workdir, ": ", why));
    case ChildStep::kCpus:
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot bind ", program, " to CPUs ", absl::StrJoin(options.cpus, ","), ": ", why));
    case ChildStep::kStdin:
    case ChildStep::kStdout:
    case ChildStep::kStderr: {
      const int target = static_cast<int>(r.step) - static_cast<int>(ChildStep::kStdin);
      const Stream stream = target == 0   ? options.stdin_stream
                            : target == 1 ? options.stdout_stream
                                          : options.stderr_stream;
      if (stream == Stream::kFile || stream == Stream::kNull) {
        return absl::InternalError(absl::StrCat(
            "cannot open ", stream == Stream::kFile ? options.output_path : "/dev/null", ": ", why));
      }
      constexpr const char* kNames[] = {"stdin", "stdout", "stderr"};
      return absl::InternalError(absl::StrCat("cannot set up the ", kNames[target], " of ",
                                              program, ": ", why));
    }
    case ChildStep::kFork:
      return absl::InternalError(absl::StrCat("cannot start ", program, ": fork: ", why));
    case ChildStep::kExec:
      return absl::NotFoundError(absl::StrCat("cannot execute ", program, ": ", why));
  }
  return absl::InternalError(absl::StrCat("cannot start ", program));
}

// Reads the child's reports until every writer is gone: the detached
// program's pid, and the failure of a step, if any.
void ReadReports(int fd, std::optional<pid_t>* detached, std::optional<ChildReport>* failure) {
  ChildReport report;
  size_t got = 0;
  while (true) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(&report) + got, sizeof(report) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    got += static_cast<size_t>(n);
    if (got < sizeof(report)) continue;
    got = 0;
    if (report.kind == ChildReport::kPid) {
      *detached = report.value;
    } else {
      *failure = report;
    }
  }
}

}  // namespace

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    env.emplace(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  return env;
}

int WaitForExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

absl::StatusOr<SpawnedProcess> Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("cannot start an empty command");
  if (options.stdin_stream == Stream::kStdout || options.stdout_stream == Stream::kStdout) {
    return absl::InvalidArgumentError("only stderr can go where stdout goes");
  }
  // Everything the child reads is made here, before fork.
  std::map<std::string, std::string> env;
  if (options.inherit_environment) env = CurrentEnvironment();
  for (const auto& [k, v] : options.env) env[k] = v;
  std::string file = options.argv[0];
  if (options.search_path && file.find('/') == std::string::npos) {
    auto path = env.find("PATH");
    if (std::optional<std::string> found =
            FindProgram(file, path != env.end() ? path->second : kDefaultPath)) {
      file = *found;
    }
  }
  std::vector<std::string> env_strings;
  env_strings.reserve(env.size());
  for (const auto& [k, v] : env) env_strings.push_back(absl::StrCat(k, "=", v));
  std::vector<char*> argv, envp;
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::optional<cpu_set_t> cpus;
  if (!options.cpus.empty()) {
    absl::StatusOr<cpu_set_t> set = CpuSetOf(options.cpus);
    if (!set.ok()) return set.status();
    cpus = *set;
  }

  Fds fds;
  std::vector<int> cgroup_fds;
  for (const std::string& procs : options.cgroup_procs) {
    const int fd = fds.Add(open(procs.c_str(), O_WRONLY | O_CLOEXEC));
    if (fd < 0) return Errno(absl::StrCat("cannot open ", procs), errno);
    cgroup_fds.push_back(fd);
  }
  const Stream streams[3] = {options.stdin_stream, options.stdout_stream, options.stderr_stream};
  int child_ends[3] = {-1, -1, -1}, parent_ends[3] = {-1, -1, -1};
  for (int i = 0; i < 3; ++i) {
    if (streams[i] != Stream::kPipe) continue;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return Errno("pipe", errno);
    const int read_end = fds.Add(p[0]), write_end = fds.Add(p[1]);
    if (read_end < 0 || write_end < 0) return Errno("pipe", errno);
    child_ends[i] = i == 0 ? read_end : write_end;
    parent_ends[i] = i == 0 ? write_end : read_end;
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return Errno("pipe", errno);
  const int report_read = fds.Add(report[0]), report_write = fds.Add(report[1]);
  if (report_read < 0 || report_write < 0) return Errno("pipe", errno);

  ChildPlan plan{options.grouping,
                 cgroup_fds.data(),
                 cgroup_fds.size(),
                 options.run_as ? &*options.run_as : nullptr,
                 options.run_as ? options.run_as->workdir.c_str() : nullptr,
                 options.workdir.empty() ? nullptr : options.workdir.c_str(),
                 cpus ? &*cpus : nullptr,
                 {streams[0], streams[1], streams[2]},
                 {child_ends[0], child_ends[1], child_ends[2]},
                 options.output_path.c_str(),
                 options.close_other_fds,
                 options.detach,
                 report_write,
                 file.c_str(),
                 argv.data(),
                 envp.data()};
  // vfork where it can: this process's memory is not copied (page tables,
  // copy-on-write faults afterwards), which matters to dlpd and dlp-run.
  // Not to switch user: glibc's setuid signals every thread of the process,
  // which a child sharing this process's memory must not do; not to detach:
  // the intermediate child forks. Signals stay blocked until the child has
  // reset its handlers, so none of this process's runs in the child.
  const bool copy = options.run_as.has_value() || options.detach;
  sigset_t all, old_mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_mask);
  const pid_t pid = internal::StartChild(plan, copy);
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) {
    return Errno(absl::StrCat("cannot start ", options.argv[0], ": fork"), fork_error);
  }
  // Also here, so that kill(-pid) works before the child runs.
  if (options.grouping == Grouping::kProcessGroup && !options.detach) setpgid(pid, pid);
  fds.Close(report_write);
  for (int fd : child_ends) {
    if (fd >= 0) fds.Close(fd);
  }
  std::optional<pid_t> detached;
  std::optional<ChildReport> failure;
  ReadReports(report_read, &detached, &failure);
  if (options.detach) WaitForExit(pid);  // the intermediate child
  if (failure) {
    if (!options.detach) WaitForExit(pid);
    return Describe(*failure, options);
  }
  if (options.detach && !detached) {
    return absl::InternalError(absl::StrCat("cannot start ", options.argv[0]));
  }
  SpawnedProcess spawned;
  spawned.pid = options.detach ? *detached : pid;
  int* ends[3] = {&spawned.stdin_fd, &spawned.stdout_fd, &spawned.stderr_fd};
  for (int i = 0; i < 3; ++i) {
    if (parent_ends[i] < 0) continue;
    *ends[i] = fds.Release(parent_ends[i]);
    fcntl(*ends[i], F_SETFL, fcntl(*ends[i], F_GETFL) | O_NONBLOCK);
  }
  return spawned;
}

}  // namespace dlp::base
