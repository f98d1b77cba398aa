#include "server/api/long_requests.h"

#include "absl/strings/str_cat.h"

namespace dlp::server {

absl::StatusOr<LongRequests::Slot> LongRequests::Acquire(const std::string& tenant,
                                                         const char* what) {
  std::lock_guard<std::mutex> lock(mu_);
  int& mine = held_[tenant];
  if (mine >= per_tenant_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many waits and log follows at once: ", per_tenant_, " per tenant; this ",
                     what, " was refused (end one, or retry later)"));
  }
  if (total_held_ >= total_) {
    return absl::ResourceExhaustedError(absl::StrCat("dlpd serves ", total_,
                                                     " waits and log follows at once; this ", what,
                                                     " was refused (retry later)"));
  }
  ++mine;
  ++total_held_;
  return Slot(static_cast<void*>(this), [this, tenant](void*) { Release(tenant); });
}

void LongRequests::Release(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  if (--held_[tenant] == 0) held_.erase(tenant);
  --total_held_;
}

}  // namespace dlp::server
