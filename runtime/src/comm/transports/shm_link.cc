// The shared-memory ring buffer: single producer (the previous rank), single
// consumer (the owner). Positions only grow; the producer publishes with a
// release store of write_pos, the consumer frees space with read_pos, and
// each rings the other's doorbell after moving its position.
#include <algorithm>
#include <cstring>

#include "comm/transports/shm_link.h"

namespace dlp::runtime {
namespace {

class ShmSendLink : public SendLink {
 public:
  ShmSendLink(std::shared_ptr<ShmSegment> own, std::shared_ptr<ShmSegment> next, int peer)
      : own_(std::move(own)), next_(std::move(next)), peer_(peer) {}
  int peer() const override { return peer_; }

  absl::StatusOr<size_t> TrySend(const char* data, size_t n) override {
    uint64_t w = next_->write_pos().load(std::memory_order_relaxed);
    uint64_t r = next_->read_pos().load(std::memory_order_acquire);
    size_t cap = next_->capacity();
    size_t take = std::min<size_t>(n, cap - (w - r));
    if (take == 0) return size_t{0};
    size_t at = w & (cap - 1);
    size_t first = std::min(take, cap - at);
    std::memcpy(next_->ring() + at, data, first);
    if (take > first) std::memcpy(next_->ring(), data + first, take - first);
    next_->write_pos().store(w + take, std::memory_order_release);
    next_->bell()->Ring();
    return take;
  }
  WaitSource wait_source() const override { return {-1, own_->bell()}; }
  absl::Status CheckPeer() override { return next_->CheckOwner(); }
  void Abandon() override {
    own_->MarkGone();
    next_->bell()->Ring();
  }

 private:
  std::shared_ptr<ShmSegment> own_, next_;
  int peer_;
};

class ShmRecvLink : public RecvLink {
 public:
  ShmRecvLink(std::shared_ptr<ShmSegment> own, std::shared_ptr<ShmSegment> prev, int peer)
      : own_(std::move(own)), prev_(std::move(prev)), peer_(peer) {}
  int peer() const override { return peer_; }

  absl::StatusOr<absl::Span<const char>> Peek() override {
    uint64_t w = own_->write_pos().load(std::memory_order_acquire);
    uint64_t r = own_->read_pos().load(std::memory_order_relaxed);
    size_t cap = own_->capacity();
    size_t at = r & (cap - 1);
    size_t n = std::min<size_t>(w - r, cap - at);
    if (n < kBounce && w - r > n) {
      // An element may straddle the end of the ring: hand out a copy.
      size_t m = std::min<size_t>(w - r, kBounce);
      std::memcpy(bounce_, own_->ring() + at, n);
      std::memcpy(bounce_ + n, own_->ring(), m - n);
      return absl::Span<const char>(bounce_, m);
    }
    return absl::Span<const char>(own_->ring() + at, n);
  }
  void Consume(size_t n) override {
    auto& r = own_->read_pos();
    r.store(r.load(std::memory_order_relaxed) + n, std::memory_order_release);
    prev_->bell()->Ring();
  }
  WaitSource wait_source() const override { return {-1, own_->bell()}; }
  absl::Status CheckPeer() override {
    // A peer that finished may leave data behind; only an empty ring is final.
    // (Look at the ring after the flag: the peer wrote its data before leaving.)
    absl::Status s = prev_->CheckOwner();
    if (!s.ok() && own_->write_pos().load(std::memory_order_acquire) !=
                       own_->read_pos().load(std::memory_order_relaxed)) {
      return absl::OkStatus();
    }
    return s;
  }
  void Abandon() override {
    own_->MarkGone();
    prev_->bell()->Ring();
  }

 private:
  static constexpr size_t kBounce = 64;
  std::shared_ptr<ShmSegment> own_, prev_;
  int peer_;
  char bounce_[kBounce];
};

}  // namespace

std::unique_ptr<SendLink> MakeShmSendLink(std::shared_ptr<ShmSegment> own,
                                          std::shared_ptr<ShmSegment> next, int peer) {
  return std::make_unique<ShmSendLink>(std::move(own), std::move(next), peer);
}
std::unique_ptr<RecvLink> MakeShmRecvLink(std::shared_ptr<ShmSegment> own,
                                          std::shared_ptr<ShmSegment> prev, int peer) {
  return std::make_unique<ShmRecvLink>(std::move(own), std::move(prev), peer);
}

}  // namespace dlp::runtime
