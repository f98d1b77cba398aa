// Tells the controller as soon as a runner exits, so that its job is settled
// and its resources go to the next job at once rather than at the next poll
// (every 100 ms: a tenth of a 1 s job's time, held idle).
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <set>
#include <thread>

namespace dlp::server {

class RunnerExitWatch {
 public:
  // `on_exit` runs on the watch's own thread after one or more watched
  // processes exited; it must not call back into the watch.
  explicit RunnerExitWatch(std::function<void()> on_exit);
  ~RunnerExitWatch();
  RunnerExitWatch(const RunnerExitWatch&) = delete;
  RunnerExitWatch& operator=(const RunnerExitWatch&) = delete;

  // Watches `pid` (a pidfd: also a process that is not dlpd's child). Without
  // pidfds (Linux before 5.3) nothing is watched and polling finds the exit.
  void Watch(pid_t pid);

 private:
  void Run();

  std::function<void()> on_exit_;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd: the destructor's wake-up
  std::mutex mu_;
  std::set<int> watched_;  // pidfds of processes not yet exited; guarded by mu_
  std::thread thread_;
};

}  // namespace dlp::server
