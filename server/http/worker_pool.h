// Threads that serve admitted requests. The pool starts small and grows, one
// thread at a time, while every thread is busy, up to a bound; past it, work
// waits in order. Long requests (waits, log follows) are bounded separately
// (api/long_requests.h) so that they cannot take every thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dlp::server {

class WorkerPool {
 public:
  WorkerPool(size_t min_threads, size_t max_threads);
  ~WorkerPool();  // Shutdown()

  // Thread-safe. Runs `task` on a pool thread; dropped after Shutdown().
  void Submit(std::function<void()> task);
  // Drops queued tasks and joins the threads (each finishes its task first).
  void Shutdown();

 private:
  void Grow();  // mu_ held
  void Run();

  const size_t max_threads_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace dlp::server
