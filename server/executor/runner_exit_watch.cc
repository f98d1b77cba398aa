#include "server/executor/runner_exit_watch.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "server/support/thread_guard.h"

namespace dlp::server {

RunnerExitWatch::RunnerExitWatch(std::function<void()> on_exit)
    : on_exit_(std::move(on_exit)),
      epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (epoll_fd_ < 0 || stop_fd_ < 0) return;  // polling alone, as before
  epoll_event stop{};
  stop.events = EPOLLIN;
  stop.data.fd = stop_fd_;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &stop) != 0) return;
  thread_ = std::thread([this] { RunGuarded("runner exit watch", [this] { Run(); }); });
}

RunnerExitWatch::~RunnerExitWatch() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof one);
    thread_.join();
  }
  for (int fd : watched_) close(fd);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void RunnerExitWatch::Watch(pid_t pid) {
  if (!thread_.joinable()) return;
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return;  // gone already (the next poll sees it) or no pidfds
  epoll_event ev{};
  ev.events = EPOLLIN;  // readable once the process has exited
  ev.data.fd = fd;
  std::lock_guard<std::mutex> lock(mu_);  // before the add: Run may see it exit at once
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close(fd);
    return;
  }
  watched_.insert(fd);
}

void RunnerExitWatch::Run() {
  epoll_event events[64];
  while (true) {
    const int n = epoll_wait(epoll_fd_, events, 64, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    bool exited = false;
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == stop_fd_) return;
      std::lock_guard<std::mutex> lock(mu_);
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      watched_.erase(fd);
      close(fd);
      exited = true;
    }
    if (exited) on_exit_();
  }
}

}  // namespace dlp::server
