// Bounds the requests that hold a worker thread for long: waits (up to 60 s)
// and log follows (until the job ends or the client leaves). Each tenant (the
// owner counts as one) may hold `per_tenant` at once and all together `total`;
// beyond, the request is refused with 429, so that long requests never take
// the threads that short ones need. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"

namespace dlp::server {

class LongRequests {
 public:
  LongRequests(int per_tenant, int total) : per_tenant_(per_tenant), total_(total) {}

  // Released when the last copy goes away.
  using Slot = std::shared_ptr<void>;

  // A slot for `tenant`'s `what` ("wait", "log follow"), or ResourceExhausted
  // saying which bound was reached.
  absl::StatusOr<Slot> Acquire(const std::string& tenant, const char* what);

  int per_tenant() const { return per_tenant_; }

 private:
  void Release(const std::string& tenant);

  const int per_tenant_, total_;
  std::mutex mu_;
  std::map<std::string, int> held_;
  int total_held_ = 0;
};

}  // namespace dlp::server
