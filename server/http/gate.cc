#include "server/http/gate.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/support/thread_guard.h"

namespace dlp::server {
namespace {

constexpr size_t kReadChunk = 4096;
constexpr absl::Duration kDrainFor = absl::Seconds(1);  // lets the client read an error
constexpr size_t kDrainBytes = 256 * 1024;
constexpr int kTickMs = 100;  // how often deadlines are checked

const char* Reason(int code) {
  switch (code) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Error";
  }
}

int HttpCode(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    default:
      return 400;
  }
}

}  // namespace

Gate::Gate(GateOptions options, Dispatch dispatch)
    : options_(std::move(options)), dispatch_(std::move(dispatch)) {}

Gate::~Gate() { Stop(); }

absl::Status Gate::Start() {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_ < 0 || wake_ < 0) {
    return absl::InternalError(absl::StrCat("epoll: ", std::strerror(errno)));
  }
  epoll_event event = {};
  event.events = EPOLLIN;
  event.data.ptr = nullptr;  // the wake-up descriptor
  epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event);
  thread_ = GuardedThread("HTTP gate", [this] { Loop(); });
  return absl::OkStatus();
}

void Gate::Stop() {
  {
    // Under mu_, so that no Adopt() writes to wake_ once it is closed.
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_.exchange(true)) return;
    if (wake_ >= 0) {
      const uint64_t one = 1;
      (void)!write(wake_, &one, sizeof(one));
    }
  }
  if (thread_.joinable()) thread_.join();
  held_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  incoming_.clear();
  if (epoll_ >= 0) close(epoll_);
  if (wake_ >= 0) close(wake_);
  epoll_ = wake_ = -1;
}

void Gate::Accept(int fd) {
  if (stopping_ || count_ >= options_.max_connections) {
    close(fd);
    return;
  }
  // Headers and body go out in separate writes: without TCP_NODELAY the body
  // waits for the client's delayed ACK.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  auto c = std::make_unique<Connection>();
  if (options_.tls) {
    c->transport = options_.tls->Wrap(fd);
    if (!c->transport) return;
  } else {
    c->transport = PlainTransport(fd);
    c->phase = Connection::Phase::kIdle;
  }
  c->deadline = absl::Now() + options_.limits.head_deadline;
  Adopt(std::move(c));
}

void Gate::Resume(std::unique_ptr<Connection> c) {
  c->phase = Connection::Phase::kIdle;
  c->scanner.Reset();
  c->deadline = absl::Now() + options_.limits.keep_alive_idle;
  Adopt(std::move(c));
}

void Gate::Adopt(std::unique_ptr<Connection> c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;  // closes it
  ++count_;
  incoming_.push_back(std::move(c));
  const uint64_t one = 1;
  (void)!write(wake_, &one, sizeof(one));
}

void Gate::Loop() {
  std::vector<epoll_event> events(256);
  absl::Time next_expiry = absl::Now();
  while (!stopping_) {
    const int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), kTickMs);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.ptr == nullptr) {
        uint64_t ignored;
        (void)!read(wake_, &ignored, sizeof(ignored));
        continue;
      }
      Progress(static_cast<Connection*>(events[i].data.ptr));
    }
    std::vector<std::unique_ptr<Connection>> arrived;
    {
      std::lock_guard<std::mutex> lock(mu_);
      arrived.swap(incoming_);
    }
    for (auto& owned : arrived) {
      Connection* c = owned.get();
      held_[c] = std::move(owned);
      epoll_event event = {};
      event.events = EPOLLIN | EPOLLRDHUP;
      event.data.ptr = c;
      epoll_ctl(epoll_, EPOLL_CTL_ADD, c->transport->fd(), &event);
      Progress(c);  // bytes may already wait, in the socket or in the buffer
    }
    if (absl::Now() >= next_expiry) {
      Expire();
      next_expiry = absl::Now() + absl::Milliseconds(kTickMs);
    }
  }
}

void Gate::Watch(Connection* c, uint32_t events) {
  epoll_event event = {};
  event.events = events | EPOLLRDHUP;
  event.data.ptr = c;
  epoll_ctl(epoll_, EPOLL_CTL_MOD, c->transport->fd(), &event);
}

void Gate::Drop(Connection* c) {
  epoll_ctl(epoll_, EPOLL_CTL_DEL, c->transport->fd(), nullptr);
  held_.erase(c);
  --count_;
}

void Gate::Hand(Connection* c) {
  epoll_ctl(epoll_, EPOLL_CTL_DEL, c->transport->fd(), nullptr);
  auto it = held_.find(c);
  std::unique_ptr<Connection> owned = std::move(it->second);
  held_.erase(it);
  --count_;
  dispatch_(std::move(owned));
}

void Gate::Expire() {
  const absl::Time now = absl::Now();
  std::vector<Connection*> late;
  for (const auto& [c, owned] : held_) {
    if (c->deadline <= now) late.push_back(c);
  }
  for (Connection* c : late) {
    if (c->phase == Connection::Phase::kHead) {
      Reject(c, 408,
             absl::DeadlineExceededError(
                 absl::StrCat("the request's headers took longer than ",
                              absl::FormatDuration(options_.limits.head_deadline))));
    } else {
      Drop(c);
    }
  }
}

void Gate::Progress(Connection* c) {
  if (c->phase == Connection::Phase::kHandshake) {
    switch (c->transport->Handshake()) {
      case Io::kOk:
        c->phase = Connection::Phase::kIdle;
        Watch(c, EPOLLIN);
        break;
      case Io::kWantRead:
        return Watch(c, EPOLLIN);
      case Io::kWantWrite:
        return Watch(c, EPOLLOUT);
      default:
        return Drop(c);
    }
  }
  if (c->phase == Connection::Phase::kDraining) {
    char discard[kReadChunk];
    for (;;) {
      IoResult r = c->transport->Read(discard, sizeof(discard));
      if (r.io == Io::kWantRead) return;
      if (r.io != Io::kOk || (c->drained += r.bytes) > kDrainBytes) return Drop(c);
    }
  }
  ReadHead(c);
}

void Gate::ReadHead(Connection* c) {
  const RequestLimits& limits = options_.limits;
  for (;;) {
    if (!c->buffer.empty() && c->phase == Connection::Phase::kIdle) {
      c->phase = Connection::Phase::kHead;
      c->deadline = absl::Now() + limits.head_deadline;
    }
    switch (c->scanner.Scan(c->buffer, limits)) {
      case HeadScanner::State::kTooLarge:
        return Reject(c, 431,
                      absl::InvalidArgumentError(absl::StrCat(
                          "request headers too large (at most ", limits.max_header_count,
                          " headers and ", limits.max_head_bytes, " bytes)")));
      case HeadScanner::State::kBareLineFeed:
        return Reject(c, 400,
                      absl::InvalidArgumentError("the request's lines must end in CRLF"));
      case HeadScanner::State::kComplete: {
        const HeadFields fields =
            ParseHeadFields(absl::string_view(c->buffer).substr(0, c->scanner.head_size()));
        if (fields.bad_content_length) {
          return Reject(c, 400, absl::InvalidArgumentError("Content-Length: not a single number"));
        }
        if (fields.chunked) {
          return Reject(
              c, 411,
              absl::InvalidArgumentError("Transfer-Encoding: send the body with a Content-Length"));
        }
        if (fields.content_length > limits.max_body_bytes) {
          return Reject(c, 413,
                        absl::InvalidArgumentError(
                            absl::StrCat("request body too large: ", fields.content_length,
                                         " bytes (at most ", limits.max_body_bytes, ")")));
        }
        if (!fields.has_content_length) {
          // A request with neither header has no body (RFC 9112 6.3); saying so
          // keeps httplib from reading a POST's "body" until the client closes.
          c->buffer.insert(c->scanner.head_size() - 2, "Content-Length: 0\r\n");
        }
        if (absl::Status admitted = options_.admit(fields); !admitted.ok()) {
          return Reject(c, HttpCode(admitted), admitted);
        }
        return Hand(c);
      }
      case HeadScanner::State::kIncomplete:
        break;
    }
    const size_t old_size = c->buffer.size();
    c->buffer.resize(old_size + kReadChunk);
    IoResult r = c->transport->Read(c->buffer.data() + old_size, kReadChunk);
    c->buffer.resize(old_size + (r.io == Io::kOk ? r.bytes : 0));
    if (r.io == Io::kWantRead) return Watch(c, EPOLLIN);
    if (r.io == Io::kWantWrite) return Watch(c, EPOLLOUT);  // TLS renegotiation
    if (r.io != Io::kOk || r.bytes == 0) return Drop(c);
  }
}

void Gate::Reject(Connection* c, int code, const absl::Status& status) {
  const std::string body = options_.error_body(status);
  std::string response =
      absl::StrCat("HTTP/1.1 ", code, " ", Reason(code),
                   "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(),
                   "\r\nConnection: close\r\n");
  if (code == 401) response += "WWW-Authenticate: Bearer\r\n";
  absl::StrAppend(&response, "\r\n", body);
  // One try: an error answer is far smaller than a socket buffer.
  c->transport->Write(response.data(), response.size());
  shutdown(c->transport->fd(), SHUT_WR);
  c->phase = Connection::Phase::kDraining;
  c->deadline = absl::Now() + kDrainFor;
  c->buffer.clear();
  c->buffer.shrink_to_fit();
  Watch(c, EPOLLIN);
}

}  // namespace dlp::server
