// dlpd's state folder (docs/api.md): created 0700, locked with flock so that
// one dlpd runs per folder, and the files clients read to find and
// authenticate to it, each 0600 and replaced atomically.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace dlp::server {

class StateDir {
 public:
  // Creates `path` (mode `mode`: 0700, or 0711 when tenants' jobs must reach
  // their folders in jobs/ without listing or reading anything else) and takes
  // the lock on dlpd.lock. FailedPrecondition when another dlpd holds it
  // (naming its pid).
  static absl::StatusOr<StateDir> Open(const std::string& path, int mode = 0700);
  ~StateDir();
  StateDir(StateDir&& other) noexcept : path_(std::move(other.path_)), lock_fd_(other.lock_fd_) {
    other.lock_fd_ = -1;
  }
  StateDir(const StateDir&) = delete;
  StateDir& operator=(const StateDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

  // The token in dlpd.token when it holds one, else 32 fresh random bytes
  // from /dev/urandom as hex. Does not write the file (see Publish).
  absl::StatusOr<std::string> LoadOrCreateToken() const;
  // Writes dlpd.token, dlpd.pid and, last, dlpd.addr (what clients look for).
  absl::Status Publish(const std::string& address, const std::string& token) const;
  // Removes dlpd.addr and dlpd.pid (on a clean exit); the token stays.
  void Unpublish() const;

 private:
  StateDir(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  std::string path_;
  int lock_fd_ = -1;
};

}  // namespace dlp::server
