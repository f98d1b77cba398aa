#include "launch/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

namespace dlp::launch {
namespace {

int g_write_fd = -1;

void OnSignal(int signo) {
  const int saved = errno;
  unsigned char byte = static_cast<unsigned char>(signo);
  ssize_t ignored = write(g_write_fd, &byte, 1);
  (void)ignored;
  errno = saved;
}

}  // namespace

int InstallSignalPipe() {
  static int read_fd = -1;
  if (read_fd >= 0) return read_fd;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  read_fd = fds[0];
  g_write_fd = fds[1];
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaction(s, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return read_fd;
}

int DrainSignalPipe(int fd, bool* child_exited) {
  int terminate = 0;
  unsigned char buf[64];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == SIGCHLD) {
        *child_exited = true;
      } else {
        terminate = buf[i];
      }
    }
  }
  return terminate;
}

}  // namespace dlp::launch
