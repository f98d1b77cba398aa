#include "launch/store_watcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"

namespace dlp::launch {

struct StoreWatcher::Shared {
  std::mutex mu;
  std::vector<std::string> values;
  int pipe[2] = {-1, -1};
  ~Shared() {
    for (int fd : pipe) {
      if (fd >= 0) close(fd);
    }
  }
  void Push(std::string value) {
    {
      std::lock_guard<std::mutex> lock(mu);
      values.push_back(std::move(value));
    }
    char byte = 1;
    (void)!write(pipe[1], &byte, 1);
  }
};

StoreWatcher::StoreWatcher(std::unique_ptr<runtime::RendezvousStore> store,
                           std::function<std::string(int)> key, std::string last)
    : shared_(std::make_shared<Shared>()) {
  if (pipe2(shared_->pipe, O_CLOEXEC | O_NONBLOCK) != 0) shared_->pipe[0] = shared_->pipe[1] = -1;
  std::thread([shared = shared_,
               store = std::shared_ptr<runtime::RendezvousStore>(std::move(store)),
               key = std::move(key), last = std::move(last)] {
    for (int n = 1;; ++n) {
      absl::StatusOr<std::string> value;
      // A round may run for days: wait in slices, for as long as it takes.
      do {
        value = store->Get(key(n), absl::Minutes(10));
      } while (absl::IsDeadlineExceeded(value.status()));
      if (!value.ok()) {
        shared->Push(absl::StrCat("error: ", value.status().message()));
        return;
      }
      const bool done = last.empty() || *value == last;
      shared->Push(*std::move(value));
      if (done) return;
    }
  }).detach();
}

StoreWatcher::~StoreWatcher() = default;

int StoreWatcher::fd() const { return shared_->pipe[0]; }

std::vector<std::string> StoreWatcher::Take() {
  char buffer[64];
  while (read(shared_->pipe[0], buffer, sizeof buffer) > 0) {
  }
  std::lock_guard<std::mutex> lock(shared_->mu);
  return std::exchange(shared_->values, {});
}

}  // namespace dlp::launch
