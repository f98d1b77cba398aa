#include "base/process/run_program.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "base/process/spawn.h"

namespace dlp::base {
namespace {

void CloseIf(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

absl::StatusOr<ProgramResult> RunProgram(const std::vector<std::string>& argv,
                                         const std::string& stdin_data, absl::Duration timeout) {
  SpawnOptions options;
  options.argv = argv;
  options.stdin_stream = stdin_data.empty() ? Stream::kNull : Stream::kPipe;
  options.stdout_stream = Stream::kPipe;
  options.stderr_stream = Stream::kPipe;
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  if (!child.ok()) return child.status();

  ProgramResult result;
  int fds[3] = {child->stdin_fd, child->stdout_fd, child->stderr_fd};
  size_t written = 0;
  const absl::Time deadline = absl::Now() + timeout;
  bool timed_out = false;
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    pollfd p[3];
    int n = 0;
    int which[3];
    for (int i = 0; i < 3; ++i) {
      if (fds[i] < 0) continue;
      p[n] = {fds[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0};
      which[n++] = i;
    }
    const int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    const int ready = poll(p, n, static_cast<int>(left_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (int i = 0; i < n; ++i) {
      if (p[i].revents == 0) continue;
      int& fd = fds[which[i]];
      if (which[i] == 0) {
        const ssize_t w = write(fd, stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EINTR && errno != EAGAIN) || written == stdin_data.size()) {
          CloseIf(fd);
        }
        continue;
      }
      char buf[65536];
      const ssize_t r = read(fd, buf, sizeof buf);
      if (r > 0) {
        (which[i] == 1 ? result.out : result.err).append(buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        CloseIf(fd);
      }
    }
  }
  for (int& fd : fds) CloseIf(fd);
  if (timed_out) kill(child->pid, SIGKILL);
  const int status = WaitForExit(child->pid);
  if (timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat(argv[0], " did not finish within ", absl::FormatDuration(timeout)));
  }
  result.exit_code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace dlp::base
