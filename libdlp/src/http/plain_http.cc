#include "http/plain_http.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace dlp::internal {
namespace {

// httplib's default, which this client replaces for http://.
constexpr absl::Duration kWriteTimeout = absl::Seconds(5);
// A status line or header longer than this is not from dlpd.
constexpr size_t kMaxLine = 64 * 1024;

void SetDetail(HttpExchange& exchange, absl::string_view text) {
  const size_t n = std::min(text.size(), sizeof exchange.detail - 1);
  std::memcpy(exchange.detail, text.data(), n);
  exchange.detail[n] = '\0';
}

std::string ErrnoText(int err) { return absl::AsciiStrToLower(std::strerror(err)); }

// "http://[::1]:8470" -> host "::1", port "8470", Host header "[::1]:8470".
struct Authority {
  std::string host;
  std::string port = "80";
  std::string header;
};

bool ParseAuthority(absl::string_view url, Authority& out) {
  if (!absl::ConsumePrefix(&url, "http://")) return false;
  url = url.substr(0, url.find('/'));
  out.header = std::string(url);
  absl::string_view rest;
  if (absl::StartsWith(url, "[")) {
    const size_t close = url.find(']');
    if (close == absl::string_view::npos) return false;
    out.host = std::string(url.substr(1, close - 1));
    rest = url.substr(close + 1);
  } else {
    const size_t colon = url.rfind(':');
    out.host = std::string(url.substr(0, colon));
    if (colon != absl::string_view::npos) rest = url.substr(colon);
  }
  if (absl::ConsumePrefix(&rest, ":")) out.port = std::string(rest);
  return !out.host.empty() && !out.port.empty();
}

// Waits until `fd` is ready for `events`; false when `timeout` passes first.
bool WaitFor(int fd, short events, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  pollfd p = {fd, events, 0};
  while (true) {
    const int64_t left_ms = absl::ToInt64Milliseconds(
        absl::Ceil(std::max(deadline - absl::Now(), absl::ZeroDuration()), absl::Milliseconds(1)));
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left_ms, 1 << 30)));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

class Socket {
 public:
  Socket() = default;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Tries each address of `authority` in turn; the socket stays non-blocking.
HttpFailure Connect(const Authority& authority, absl::Duration timeout, Socket& socket_out,
                    HttpExchange& exchange) {
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* found = nullptr;
  if (int rc = getaddrinfo(authority.host.c_str(), authority.port.c_str(), &hints, &found);
      rc != 0) {
    SetDetail(exchange, absl::StrCat("cannot resolve host: ", gai_strerror(rc)));
    return HttpFailure::kConnect;
  }
  HttpFailure failure = HttpFailure::kConnect;
  for (struct addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    const int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      SetDetail(exchange, ErrnoText(errno));
      continue;
    }
    socket_out.Reset(fd);
    int err = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      socklen_t len = sizeof err;
      if (!WaitFor(fd, POLLOUT, timeout)) {
        err = ETIMEDOUT;
      } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
    }
    if (err == 0) {
      failure = HttpFailure::kNone;
      break;
    }
    socket_out.Reset(-1);
    failure = err == ETIMEDOUT ? HttpFailure::kConnectTimeout : HttpFailure::kConnect;
    SetDetail(exchange, ErrnoText(err));
  }
  freeaddrinfo(found);
  return failure;
}

bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
               WaitFor(fd, POLLOUT, kWriteTimeout)) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

// Buffered reads from the socket, each wait bounded by the read timeout.
class Reader {
 public:
  Reader(int fd, absl::Duration timeout) : fd_(fd), timeout_(timeout) {}

  // True when the peer closed the connection (rather than an error or a timeout).
  bool at_eof() const { return eof_; }

  // The next line without its CR LF; false when the connection ends first.
  bool Line(std::string& line) {
    size_t nl;
    while ((nl = buffer_.find('\n', pos_)) == std::string::npos) {
      if (buffer_.size() - pos_ > kMaxLine || !Fill()) return false;
    }
    line.assign(buffer_, pos_, nl - pos_);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos_ = nl + 1;
    return true;
  }

  // Up to `max` bytes, valid until the next call; empty when the connection ends.
  absl::string_view Some(size_t max) {
    if (pos_ == buffer_.size() && !Fill()) return {};
    const size_t n = std::min(max, buffer_.size() - pos_);
    absl::string_view out(buffer_.data() + pos_, n);
    pos_ += n;
    return out;
  }

 private:
  bool Fill() {
    buffer_.erase(0, pos_);
    pos_ = 0;
    char chunk[16384];
    while (true) {
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<size_t>(n));
        return true;
      }
      if (n == 0) {
        eof_ = true;
        return false;
      }
      if (errno == EINTR) continue;
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && WaitFor(fd_, POLLIN, timeout_)) continue;
      return false;
    }
  }

  int fd_;
  absl::Duration timeout_;
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
};

bool Deliver(HttpExchange& exchange, absl::string_view data) {
  return exchange.on_body(exchange.sink, data.data(), data.size()) != 0;
}

HttpFailure ReadChunked(Reader& reader, HttpExchange& exchange) {
  std::string line;
  while (true) {
    uint64_t size = 0;
    if (!reader.Line(line)) return HttpFailure::kRead;
    absl::string_view digits = absl::StripAsciiWhitespace(line.substr(0, line.find(';')));
    if (!absl::SimpleHexAtoi(digits, &size)) {
      SetDetail(exchange, "malformed chunked response");
      return HttpFailure::kRead;
    }
    if (size == 0) {  // the last chunk; skip the trailer
      while (reader.Line(line) && !line.empty()) {
      }
      return HttpFailure::kNone;
    }
    while (size > 0) {
      absl::string_view piece = reader.Some(size);
      if (piece.empty()) return HttpFailure::kRead;
      size -= piece.size();
      if (!Deliver(exchange, piece)) return HttpFailure::kNone;
    }
    if (!reader.Line(line) || !line.empty()) return HttpFailure::kRead;
  }
}

HttpFailure ReadResponse(Reader& reader, HttpExchange& exchange) {
  std::string line;
  int status = 0;
  if (!reader.Line(line)) return HttpFailure::kRead;
  // "HTTP/1.1 200 OK"
  if (!absl::StartsWith(line, "HTTP/1.") || line.size() < 12 ||
      !absl::SimpleAtoi(line.substr(9, 3), &status)) {
    SetDetail(exchange, "malformed status line");
    return HttpFailure::kRead;
  }
  int64_t length = -1;
  bool chunked = false;
  while (true) {
    if (!reader.Line(line)) return HttpFailure::kRead;
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    absl::string_view name = absl::StripAsciiWhitespace(absl::string_view(line).substr(0, colon));
    absl::string_view value = absl::StripAsciiWhitespace(absl::string_view(line).substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "content-length")) {
      if (!absl::SimpleAtoi(value, &length)) length = -1;
    } else if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
      chunked = absl::StrContains(absl::AsciiStrToLower(value), "chunked");
    }
  }
  exchange.on_status(exchange.sink, status);
  if (chunked) return ReadChunked(reader, exchange);
  if (length >= 0) {
    for (uint64_t left = static_cast<uint64_t>(length); left > 0;) {
      absl::string_view piece = reader.Some(left);
      if (piece.empty()) return HttpFailure::kRead;
      left -= piece.size();
      if (!Deliver(exchange, piece)) return HttpFailure::kNone;
    }
    return HttpFailure::kNone;
  }
  // Neither: the body ends when the server closes the connection.
  while (true) {
    absl::string_view piece = reader.Some(SIZE_MAX);
    if (piece.empty()) return reader.at_eof() ? HttpFailure::kNone : HttpFailure::kRead;
    if (!Deliver(exchange, piece)) return HttpFailure::kNone;
  }
}

}  // namespace

HttpFailure PlainHttpExchange(HttpExchange& exchange) {
  Authority authority;
  if (!ParseAuthority(exchange.url, authority)) {
    SetDetail(exchange, "malformed URL");
    return HttpFailure::kOther;
  }
  Socket socket;
  const HttpFailure connected =
      Connect(authority, absl::Microseconds(exchange.connect_timeout_us), socket, exchange);
  if (connected != HttpFailure::kNone) return connected;

  std::string request =
      absl::StrCat(exchange.method, " ", exchange.target, " HTTP/1.1\r\nHost: ", authority.header,
                   "\r\nAccept: */*\r\nConnection: close\r\n");
  if (exchange.bearer_token[0] != '\0') {
    absl::StrAppend(&request, "Authorization: Bearer ", exchange.bearer_token, "\r\n");
  }
  if (absl::string_view(exchange.method) == "POST") {
    absl::StrAppend(&request, "Content-Type: ", exchange.content_type,
                    "\r\nContent-Length: ", exchange.body_size, "\r\n");
  }
  request += "\r\n";
  if (exchange.body_size > 0) request.append(exchange.body, exchange.body_size);
  if (!SendAll(socket.fd(), request)) {
    SetDetail(exchange, ErrnoText(errno));
    return HttpFailure::kWrite;
  }
  Reader reader(socket.fd(), absl::Microseconds(exchange.read_timeout_us));
  return ReadResponse(reader, exchange);
}

}  // namespace dlp::internal
