// Small TCP helpers shared by the rendezvous store and the TCP transport:
// an owning fd, listening, connecting with retries, and whole-buffer I/O with
// deadlines. Errors are absl::Status values that carry errno's text.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::runtime {

// Owns a file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset();

 private:
  int fd_ = -1;
};

struct HostPort {
  std::string host;
  int port = 0;
};

// Parses "host:port" (or "[v6]:port").
absl::StatusOr<HostPort> ParseHostPort(const std::string& text);

// A listening TCP socket on host:port (port 0 picks one); see BoundPort().
absl::StatusOr<Fd> ListenTcp(const std::string& host, int port, int backlog = 128);
absl::StatusOr<int> BoundPort(int fd);

// Connects, retrying refused connections until `deadline`.
absl::StatusOr<Fd> ConnectTcp(const std::string& host, int port, absl::Time deadline);

// Accepts one connection; DeadlineExceeded after `deadline`.
absl::StatusOr<Fd> AcceptTcp(int listen_fd, absl::Time deadline);

// The local address this host uses to reach host:port (no packet is sent).
absl::StatusOr<std::string> LocalAddressFor(const std::string& host, int port);

// TCP_NODELAY and large kernel buffers, for bulk transfers.
void TuneForBulk(int fd);
absl::Status SetNonBlocking(int fd, bool on);

// Writes or reads exactly n bytes, waiting at most until `deadline`. A peer
// that closed the connection gives UnavailableError.
absl::Status SendAll(int fd, const void* data, size_t n, absl::Time deadline);
absl::Status RecvAll(int fd, void* data, size_t n, absl::Time deadline);

// Waits until `fd` is readable (events=POLLIN) or writable (POLLOUT).
absl::Status PollFd(int fd, short events, absl::Time deadline);

absl::Status ErrnoStatus(const std::string& what, int err);

}  // namespace dlp::runtime
