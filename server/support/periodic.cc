#include "server/support/periodic.h"

#include "server/support/thread_guard.h"

namespace dlp::server {

Periodic::Periodic(std::string what, absl::Duration interval, std::function<void()> round) {
  thread_ = GuardedThread(what, [this, what, interval, round = std::move(round)] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!wake_.wait_for(lock, absl::ToChronoMilliseconds(interval), [this] { return stop_; })) {
      lock.unlock();
      RunGuarded(what, round);
      lock.lock();
    }
  });
}

void Periodic::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace dlp::server
