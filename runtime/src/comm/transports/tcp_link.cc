#include "comm/transports/tcp_link.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dlp::runtime {
namespace {

absl::Status PeerGone(int peer, const char* what) {
  return absl::UnavailableError(absl::StrCat("rank ", peer, " ", what));
}

class TcpSendLink : public SendLink {
 public:
  TcpSendLink(Fd fd, int peer) : fd_(std::move(fd)), peer_(peer) {
    TuneForBulk(fd_.get());
    (void)SetNonBlocking(fd_.get(), true);
  }
  int peer() const override { return peer_; }
  absl::StatusOr<size_t> TrySend(const char* data, size_t n) override {
    ssize_t sent = ::send(fd_.get(), data, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent >= 0) return static_cast<size_t>(sent);
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return size_t{0};
    return PeerGone(peer_, absl::StrCat("closed the connection (", std::strerror(errno), ")").c_str());
  }
  WaitSource wait_source() const override { return {fd_.get(), nullptr}; }
  absl::Status CheckPeer() override { return absl::OkStatus(); }  // errors surface in send()
  void Abandon() override { ::shutdown(fd_.get(), SHUT_RDWR); }

 private:
  Fd fd_;
  int peer_;
};

class TcpRecvLink : public RecvLink {
 public:
  static constexpr size_t kStaging = 4 << 20;

  TcpRecvLink(Fd fd, int peer) : fd_(std::move(fd)), peer_(peer), buf_(kStaging) {
    TuneForBulk(fd_.get());
    (void)SetNonBlocking(fd_.get(), true);
  }
  int peer() const override { return peer_; }

  absl::StatusOr<absl::Span<const char>> Peek() override {
    if (head_ == tail_) head_ = tail_ = 0;
    if (buf_.size() - tail_ < 64 * 1024 && head_ > 0) {
      // Keep a partial element and make room behind it.
      std::memmove(buf_.data(), buf_.data() + head_, tail_ - head_);
      tail_ -= head_;
      head_ = 0;
    }
    if (tail_ < buf_.size()) {
      ssize_t got = ::recv(fd_.get(), buf_.data() + tail_, buf_.size() - tail_, MSG_DONTWAIT);
      if (got > 0) {
        tail_ += static_cast<size_t>(got);
      } else if (got == 0) {
        // Data that arrived before the close is still delivered, however
        // little. The close is final once nothing is left, or when what is
        // left was offered and not taken since (a torn element).
        if (tail_ == head_ || (closed_ && head_ == head_at_close_)) {
          return PeerGone(peer_, "closed the connection");
        }
        closed_ = true;
        head_at_close_ = head_;
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return PeerGone(peer_, absl::StrCat("closed the connection (", std::strerror(errno), ")").c_str());
      }
    }
    return absl::Span<const char>(buf_.data() + head_, tail_ - head_);
  }
  void Consume(size_t n) override { head_ += n; }
  WaitSource wait_source() const override { return {fd_.get(), nullptr}; }
  absl::Status CheckPeer() override { return absl::OkStatus(); }
  void Abandon() override { ::shutdown(fd_.get(), SHUT_RDWR); }

 private:
  Fd fd_;
  int peer_;
  std::vector<char> buf_;
  size_t head_ = 0, tail_ = 0;
  bool closed_ = false;  // the peer's close was seen
  size_t head_at_close_ = 0;
};

}  // namespace

std::unique_ptr<SendLink> MakeTcpSendLink(Fd fd, int peer) {
  return std::make_unique<TcpSendLink>(std::move(fd), peer);
}
std::unique_ptr<RecvLink> MakeTcpRecvLink(Fd fd, int peer) {
  return std::make_unique<TcpRecvLink>(std::move(fd), peer);
}

}  // namespace dlp::runtime
