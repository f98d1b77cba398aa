#include "backends/slurm/run_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

extern char** environ;

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
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // posix_spawn, not fork: the child shares our memory until it execs (vfork), so
  // starting sbatch does not copy the page tables of this process; a program that
  // cannot be executed comes back as its error.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int spawn_error = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (spawn_error != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    return absl::NotFoundError(absl::StrCat("cannot run ", argv[0], ": ", strerror(spawn_error)));
  }

  ProgramResult result;
  int fds[3] = {in[1], out[0], err[0]};
  size_t written = 0;
  if (stdin_data.empty()) CloseIf(fds[0]);
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
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(
        argv[0], " did not finish within ", absl::FormatDuration(timeout)));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace dlp::internal
