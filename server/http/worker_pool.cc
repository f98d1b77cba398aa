#include "server/http/worker_pool.h"

#include "server/support/thread_guard.h"

namespace dlp::server {

WorkerPool::WorkerPool(size_t min_threads, size_t max_threads) : max_threads_(max_threads) {
  std::lock_guard<std::mutex> lock(mu_);
  while (threads_.size() < min_threads) Grow();
}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Grow() {
  threads_.emplace_back([this] { Run(); });
}

void WorkerPool::Submit(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  queue_.push_back(std::move(task));
  if (idle_ < queue_.size() && threads_.size() < max_threads_) Grow();
  ready_.notify_one();
}

void WorkerPool::Shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (std::thread& t : threads) t.join();
}

void WorkerPool::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (stopping_) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    RunGuarded("HTTP request", task);  // a throwing request drops its connection only
    task = nullptr;  // release what it holds (a connection) before waiting
    lock.lock();
  }
}

}  // namespace dlp::server
