#include "backends/slurm/run_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dlp::internal {
namespace {

void CloseIf(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

absl::StatusOr<ProgramResult> RunProgram(const std::vector<std::string>& argv,
                                         const std::string& stdin_data, absl::Duration timeout) {
  if (argv.empty()) return absl::InvalidArgumentError("RunProgram: empty argv");
  int in[2], out[2], err[2], exec_err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      pipe2(exec_err, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    signal(SIGPIPE, SIG_DFL);
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(exec_err[1], &e, sizeof e);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(exec_err[1]);
  int exec_errno = 0;
  bool exec_failed = read(exec_err[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_err[0]);

  ProgramResult result;
  int fds[3] = {in[1], out[0], err[0]};
  size_t written = 0;
  if (stdin_data.empty() || exec_failed) CloseIf(fds[0]);
  const absl::Time deadline = absl::Now() + timeout;
  bool timed_out = false;
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    pollfd p[3];
    int n = 0;
    int which[3];
    if (fds[0] >= 0) { p[n] = {fds[0], POLLOUT, 0}; which[n++] = 0; }
    if (fds[1] >= 0) { p[n] = {fds[1], POLLIN, 0}; which[n++] = 1; }
    if (fds[2] >= 0) { p[n] = {fds[2], POLLIN, 0}; which[n++] = 2; }
    const int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    int ready = poll(p, n, static_cast<int>(left_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (int i = 0; i < n; ++i) {
      if (p[i].revents == 0) continue;
      int& fd = fds[which[i]];
      if (which[i] == 0) {
        ssize_t w = write(fd, stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 || written == stdin_data.size()) CloseIf(fd);
        continue;
      }
      char buf[65536];
      ssize_t r = read(fd, buf, sizeof buf);
      if (r > 0) {
        (which[i] == 1 ? result.out : result.err).append(buf, static_cast<size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        CloseIf(fd);
      }
    }
  }
  for (int& fd : fds) CloseIf(fd);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    return absl::NotFoundError(absl::StrCat("cannot run ", argv[0], ": ", strerror(exec_errno)));
  }
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(
        argv[0], " did not finish within ", absl::FormatDuration(timeout)));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace dlp::internal
