#include "common/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace dlp::runtime {
namespace {

int PollTimeoutMs(absl::Time deadline) {
  absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  if (left > absl::Seconds(1)) return 1000;
  return static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
}

absl::StatusOr<addrinfo*> Resolve(const std::string& host, int port, bool passive, int type) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = type;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &result);
  if (rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve ", host, ":", port, ": ", gai_strerror(rc)));
  }
  return result;
}

}  // namespace

void Fd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::Status ErrnoStatus(const std::string& what, int err) {
  std::string text = absl::StrCat(what, ": ", std::strerror(err));
  if (err == ECONNREFUSED || err == ECONNRESET || err == EPIPE || err == ENOTCONN) {
    return absl::UnavailableError(text);
  }
  return absl::InternalError(text);
}

absl::StatusOr<HostPort> ParseHostPort(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat("expected host:port, got '", text, "'"));
  }
  HostPort result;
  result.host = text.substr(0, colon);
  if (result.host.size() > 2 && result.host.front() == '[' && result.host.back() == ']') {
    result.host = result.host.substr(1, result.host.size() - 2);
  }
  if (!absl::SimpleAtoi(text.substr(colon + 1), &result.port) || result.port < 0 ||
      result.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("bad port in '", text, "'"));
  }
  return result;
}

absl::StatusOr<Fd> ListenTcp(const std::string& host, int port, int backlog) {
  auto resolved = Resolve(host, port, /*passive=*/true, SOCK_STREAM);
  if (!resolved.ok()) return resolved.status();
  absl::Status last = absl::UnavailableError("no address");
  for (addrinfo* ai = *resolved; ai != nullptr; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) continue;
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd.get(), backlog) != 0) {
      last = ErrnoStatus(absl::StrCat("cannot listen on ", host, ":", port), errno);
      continue;
    }
    freeaddrinfo(*resolved);
    return fd;
  }
  freeaddrinfo(*resolved);
  return last;
}

absl::StatusOr<int> BoundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return ErrnoStatus("getsockname", errno);
  }
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

absl::StatusOr<Fd> ConnectTcp(const std::string& host, int port, absl::Time deadline) {
  absl::Duration backoff = absl::Milliseconds(5);
  while (true) {
    auto resolved = Resolve(host, port, /*passive=*/false, SOCK_STREAM);
    if (!resolved.ok()) return resolved.status();
    absl::Status last = absl::UnavailableError("no address");
    for (addrinfo* ai = *resolved; ai != nullptr; ai = ai->ai_next) {
      Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
      if (!fd.valid()) continue;
      if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
        freeaddrinfo(*resolved);
        int one = 1;
        setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
      }
      last = ErrnoStatus(absl::StrCat("cannot connect to ", host, ":", port), errno);
    }
    freeaddrinfo(*resolved);
    // Only a listener that is not up yet is worth waiting for.
    if (!absl::IsUnavailable(last) || absl::Now() + backoff > deadline) return last;
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(backoff));
    backoff = std::min(backoff * 2, absl::Milliseconds(200));
  }
}

absl::StatusOr<Fd> AcceptTcp(int listen_fd, absl::Time deadline) {
  while (true) {
    absl::Status ready = PollFd(listen_fd, POLLIN, deadline);
    if (!ready.ok()) return ready;
    Fd fd(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
    if (fd.valid()) {
      int one = 1;
      setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      return fd;
    }
    if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
      return ErrnoStatus("accept", errno);
    }
  }
}

absl::StatusOr<std::string> LocalAddressFor(const std::string& host, int port) {
  auto resolved = Resolve(host, port, /*passive=*/false, SOCK_DGRAM);
  if (!resolved.ok()) return resolved.status();
  addrinfo* ai = *resolved;
  Fd fd(::socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  int rc = fd.valid() ? ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) : -1;
  freeaddrinfo(ai);
  if (rc != 0) return ErrnoStatus(absl::StrCat("no route to ", host), errno);
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, text, sizeof(text));
    return absl::StrCat("[", text, "]");
  }
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, text, sizeof(text));
  return std::string(text);
}

void TuneForBulk(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int size = 8 << 20;  // the kernel caps this at net.core.{r,w}mem_max
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

absl::Status SetNonBlocking(int fd, bool on) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return ErrnoStatus("fcntl", errno);
  flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, flags) != 0) return ErrnoStatus("fcntl", errno);
  return absl::OkStatus();
}

absl::Status PollFd(int fd, short events, absl::Time deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, PollTimeoutMs(deadline));
    if (rc > 0) return absl::OkStatus();  // errors and hang-ups surface in the next I/O call
    if (rc < 0 && errno != EINTR) return ErrnoStatus("poll", errno);
    if (absl::Now() >= deadline) return absl::DeadlineExceededError("timed out");
  }
}

absl::Status SendAll(int fd, const void* data, size_t n, absl::Time deadline) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) {
      p += sent;
      n -= static_cast<size_t>(sent);
      continue;
    }
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return ErrnoStatus("send", errno);
    }
    if (absl::Status s = PollFd(fd, POLLOUT, deadline); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RecvAll(int fd, void* data, size_t n, absl::Time deadline) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t got = ::recv(fd, p, n, MSG_DONTWAIT);
    if (got > 0) {
      p += got;
      n -= static_cast<size_t>(got);
      continue;
    }
    if (got == 0) return absl::UnavailableError("connection closed by peer");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return ErrnoStatus("recv", errno);
    }
    if (absl::Status s = PollFd(fd, POLLIN, deadline); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace dlp::runtime
