// A thread that runs a round of work every interval (each round under
// RunGuarded, thread_guard.h) until it is stopped or destroyed. Thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/time.h"

namespace dlp::server {

class Periodic {
 public:
  // The first round runs one `interval` after the start.
  Periodic(std::string what, absl::Duration interval, std::function<void()> round);
  ~Periodic() { Stop(); }
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;

  // Waits for a round under way to end; no round starts after it.
  void Stop();

 private:
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dlp::server
