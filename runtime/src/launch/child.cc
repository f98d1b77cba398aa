#include "launch/child.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/cpu_binding.h"

extern char** environ;

namespace dlp::launch {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// PATH lookup with the child's PATH, done before fork.
std::string Resolve(const std::string& program, const std::map<std::string, std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  auto it = env.find("PATH");
  const std::string path = it != env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (IsExecutable(candidate)) return candidate;
  }
  return program;
}

// Child side: only async-signal-safe calls until exec, on memory the parent
// prepared (it shares the parent's memory). Every signal is blocked on entry;
// the handlers are reset before any can run.
[[noreturn]] void ExecChild(const char* file, char* const* argv, char* const* envp,
                            const char* workdir, const cpu_set_t* cpus, int out_w, int err_w,
                            int in_r, int report_w) {
  setpgid(0, 0);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (in_r >= 0) {
    dup2(in_r, 0);
  } else {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
  }
  if (out_w >= 0) dup2(out_w, 1);
  if (err_w >= 0) dup2(err_w, 2);
  int code = 0;
  if (workdir != nullptr && chdir(workdir) != 0) {
    code = 1000 + errno;  // distinguishes a bad workdir from a failed exec
  } else if (cpus != nullptr && sched_setaffinity(0, sizeof(*cpus), cpus) != 0) {
    code = 2000 + errno;  // and CPUs it may not be bound to
  } else {
    execve(file, argv, envp);
    code = errno;
  }
  ssize_t ignored = write(report_w, &code, sizeof code);
  (void)ignored;
  _exit(127);
}

// vfork: the child borrows this process's memory until it execs, so starting
// a rank copies no page tables and takes no copy-on-write faults afterwards
// (under dlpd, one dlp-run per job). Apart, so that nothing of the caller's
// frame lives across vfork.
[[gnu::noinline]] pid_t StartChild(const char* file, char* const* argv, char* const* envp,
                                   const char* workdir, const cpu_set_t* cpus, int out_w, int err_w,
                                   int in_r, int report_w) {
  const pid_t pid = vfork();
  if (pid == 0) ExecChild(file, argv, envp, workdir, cpus, out_w, err_w, in_r, report_w);
  return pid;
}

}  // namespace

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = strchr(*e, '=');
    if (eq == nullptr) continue;
    env[std::string(*e, static_cast<size_t>(eq - *e))] = std::string(eq + 1);
  }
  return env;
}

absl::StatusOr<Child> Spawn(const SpawnRequest& request) {
  if (request.argv.empty()) return absl::InvalidArgumentError("empty command");
  const std::string file = Resolve(request.argv[0], request.env);
  std::vector<char*> argv, envp;
  std::vector<std::string> env_strings;
  for (const std::string& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  env_strings.reserve(request.env.size());
  for (const auto& [k, v] : request.env) env_strings.push_back(k + "=" + v);
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  absl::StatusOr<cpu_set_t> cpus = runtime::CpuSetOf(request.cpus);
  if (!cpus.ok()) return cpus.status();

  int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, report[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1], report[0], report[1]}) {
      if (fd >= 0) close(fd);
    }
  };
  bool ok = pipe2(report, O_CLOEXEC) == 0;
  if (ok && request.capture_output) ok = pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0;
  if (ok && request.stdin_pipe) ok = pipe2(in, O_CLOEXEC) == 0;
  if (!ok) {
    close_all();
    return absl::ResourceExhaustedError(absl::StrCat("pipe: ", strerror(errno)));
  }
  // No handler of this process may run in the child, which shares its memory.
  sigset_t all, old_mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_mask);
  const pid_t pid =
      StartChild(file.c_str(), argv.data(), envp.data(),
                 request.workdir.empty() ? nullptr : request.workdir.c_str(),
                 request.cpus.empty() ? nullptr : &*cpus, out[1], err[1], in[0], report[1]);
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) {
    close_all();
    return absl::ResourceExhaustedError(absl::StrCat("vfork: ", strerror(fork_error)));
  }
  setpgid(pid, pid);  // also here, so that kill(-pid) works before the child runs
  for (int* fd : {&out[1], &err[1], &in[0], &report[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  int code = 0;
  ssize_t n;
  do {
    n = read(report[0], &code, sizeof code);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  report[0] = -1;
  if (n == sizeof code) {
    close_all();
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (code >= 2000) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot bind ", request.argv[0], " to CPUs ",
                       absl::StrJoin(request.cpus, ","), ": ", strerror(code - 2000)));
    }
    if (code >= 1000) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot enter working directory ", request.workdir, ": ", strerror(code - 1000)));
    }
    return absl::NotFoundError(absl::StrCat("cannot execute ", request.argv[0], ": ", strerror(code)));
  }
  Child child;
  child.pid = pid;
  child.out_fd = out[0];
  child.err_fd = err[0];
  child.in_fd = in[1];
  for (int fd : {child.out_fd, child.err_fd, child.in_fd}) {
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return child;
}

}  // namespace dlp::launch
