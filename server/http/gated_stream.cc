#include "server/http/gated_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstring>

#include "absl/time/clock.h"

namespace dlp::server {
namespace {

void Describe(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

int MillisUntil(absl::Time deadline) {
  const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1 << 30));
}

}  // namespace

GatedStream::GatedStream(Connection& connection, const RequestLimits& limits)
    : connection_(connection),
      limits_(limits),
      read_deadline_(absl::Now() + limits.body_deadline) {}

GatedStream::~GatedStream() { connection_.buffer.erase(0, consumed_); }

bool GatedStream::Await(Io io, absl::Time deadline) const {
  pollfd pfd = {connection_.transport->fd(),
                static_cast<short>(io == Io::kWantWrite ? POLLOUT : POLLIN), 0};
  for (;;) {
    const int n = poll(&pfd, 1, MillisUntil(deadline));
    if (n > 0) return (pfd.revents & (POLLERR | POLLNVAL)) == 0 || (pfd.revents & POLLIN);
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

bool GatedStream::is_readable() const {
  return consumed_ < connection_.buffer.size() || connection_.transport->HasPending() ||
         Await(Io::kWantRead, read_deadline_);
}

bool GatedStream::is_writable() const {
  pollfd pfd = {connection_.transport->fd(), POLLOUT | POLLRDHUP, 0};
  int n;
  do {
    n = poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(limits_.write_stall)));
  } while (n < 0 && errno == EINTR);
  if (n <= 0 || (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) return false;
  return (pfd.revents & POLLOUT) != 0;
}

ssize_t GatedStream::read(char* ptr, size_t size) {
  if (consumed_ < connection_.buffer.size()) {
    const size_t n = std::min(size, connection_.buffer.size() - consumed_);
    std::memcpy(ptr, connection_.buffer.data() + consumed_, n);
    consumed_ += n;
    return static_cast<ssize_t>(n);
  }
  // The gate admitted a Content-Length within the limit; nothing more is read.
  if (!healthy_ || socket_bytes_ >= limits_.max_body_bytes) return -1;
  size = std::min(size, limits_.max_body_bytes - socket_bytes_);
  for (;;) {
    IoResult r = connection_.transport->Read(ptr, size);
    if (r.io == Io::kOk) {
      socket_bytes_ += r.bytes;
      return static_cast<ssize_t>(r.bytes);
    }
    if ((r.io != Io::kWantRead && r.io != Io::kWantWrite) || !Await(r.io, read_deadline_)) {
      healthy_ = false;
      return -1;
    }
  }
}

ssize_t GatedStream::write(const char* ptr, size_t size) {
  size_t done = 0;
  while (healthy_ && done < size) {
    IoResult r = connection_.transport->Write(ptr + done, size - done);
    if (r.io == Io::kOk) {
      done += r.bytes;
    } else if ((r.io != Io::kWantRead && r.io != Io::kWantWrite) ||
               !Await(r.io, absl::Now() + limits_.write_stall)) {
      healthy_ = false;
    }
  }
  return healthy_ ? static_cast<ssize_t>(size) : -1;
}

void GatedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  if (getpeername(connection_.transport->fd(), reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    Describe(addr, ip, port);
  }
}

void GatedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  if (getsockname(connection_.transport->fd(), reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    Describe(addr, ip, port);
  }
}

}  // namespace dlp::server
