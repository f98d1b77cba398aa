#include "comm/algorithms/ring_engine.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "comm/algorithms/reduce.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

// Bytes reduced (or copied) per turn, so sends of the next step start early.
constexpr size_t kProcessChunk = 256 << 10;
// How long to sleep between liveness checks of the neighbours.
constexpr absl::Duration kCheckInterval = absl::Milliseconds(100);

class Runner {
 public:
  Runner(const RingContext& ring, const std::vector<RingStep>& steps, StepKind kind)
      : ring_(ring), steps_(steps), kind_(kind), elem_(DTypeSize(kind.dtype)),
        processed_(steps.size(), 0) {}

  absl::Status Run(const char* what) {
    absl::Time last_progress = absl::Now();
    Doorbell* bell = BellOf(ring_.next, ring_.prev);
    SkipEmpty();
    while (send_step_ < steps_.size() || recv_step_ < steps_.size()) {
      uint32_t seen = bell != nullptr ? bell->seq.load(std::memory_order_seq_cst) : 0;
      absl::StatusOr<bool> sent = PumpSend();
      if (!sent.ok()) return Fail(sent.status(), what, ring_.next->peer());
      absl::StatusOr<bool> received = PumpRecv();
      if (!received.ok()) return Fail(received.status(), what, ring_.prev->peer());
      if (*sent || *received) {
        last_progress = absl::Now();
        continue;
      }
      absl::Time now = absl::Now();
      if (now - last_progress > ring_.timeout) {
        return Fail(Stalled(), what,
                    recv_step_ < steps_.size() ? ring_.prev->peer() : ring_.next->peer());
      }
      bool want_send = send_step_ < steps_.size() && SendReady() > send_offset_;
      bool want_recv = recv_step_ < steps_.size();
      WaitForLinks(ring_.next, want_send, ring_.prev, want_recv, seen, kCheckInterval,
                   ring_.share_cores);
      if (absl::Now() - now >= kCheckInterval / 2) {
        // A long sleep: make sure the neighbours are still there.
        if (want_send || send_step_ < steps_.size()) {
          if (absl::Status s = ring_.next->CheckPeer(); !s.ok()) {
            return Fail(s, what, ring_.next->peer());
          }
        }
        if (want_recv) {
          if (absl::Status s = ring_.prev->CheckPeer(); !s.ok()) {
            return Fail(s, what, ring_.prev->peer());
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  // Steps with nothing to send or receive are finished from the start.
  void SkipEmpty() {
    while (send_step_ < steps_.size() && steps_[send_step_].send_bytes == 0) ++send_step_;
    while (recv_step_ < steps_.size() && steps_[recv_step_].recv_bytes == 0) ++recv_step_;
  }

  size_t SendReady() const {
    const RingStep& s = steps_[send_step_];
    if (s.send_after < 0) return s.send_bytes;
    return std::min(s.send_bytes, processed_[static_cast<size_t>(s.send_after)]);
  }

  absl::StatusOr<bool> PumpSend() {
    bool progress = false;
    while (send_step_ < steps_.size()) {
      const RingStep& s = steps_[send_step_];
      size_t ready = SendReady();
      if (send_offset_ >= ready) break;
      absl::StatusOr<size_t> n = ring_.next->TrySend(s.send + send_offset_, ready - send_offset_);
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      progress = true;
      send_offset_ += *n;
      if (send_offset_ == s.send_bytes) {
        ++send_step_;
        send_offset_ = 0;
        SkipEmpty();
      }
    }
    return progress;
  }

  absl::StatusOr<bool> PumpRecv() {
    bool progress = false;
    // One chunk per turn, then give the send side a chance.
    if (recv_step_ < steps_.size()) {
      const RingStep& s = steps_[recv_step_];
      size_t& done = processed_[recv_step_];
      absl::StatusOr<absl::Span<const char>> data = ring_.prev->Peek();
      if (!data.ok()) return data.status();
      size_t take = std::min({data->size(), s.recv_bytes - done, kProcessChunk});
      take -= take % elem_;
      if (take == 0) return false;
      char* dst = s.recv + done;
      if (s.reduce) {
        const char* own = s.own != nullptr ? s.own + done : dst;
        ReduceFrom(dst, own, data->data(), take / elem_, kind_.dtype, kind_.op);
        if (s.average) FinishAverage(dst, take / elem_, kind_.dtype, ring_.size);
      } else {
        std::memcpy(dst, data->data(), take);
      }
      ring_.prev->Consume(take);
      done += take;
      progress = true;
      if (done == s.recv_bytes) {
        ++recv_step_;
        SkipEmpty();
      }
    }
    return progress;
  }

  absl::Status Stalled() const {
    if (recv_step_ < steps_.size()) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "no data from rank %d for %s", ring_.prev->peer(), absl::FormatDuration(ring_.timeout)));
    }
    return absl::DeadlineExceededError(absl::StrFormat(
        "rank %d took no data for %s", ring_.next->peer(), absl::FormatDuration(ring_.timeout)));
  }

  // Names this rank and carries the peer's rank as a payload (kPeerPayload).
  absl::Status Fail(const absl::Status& s, const char* what, int peer) {
    return PeerError(s, what, ring_.rank, peer);
  }

  const RingContext& ring_;
  const std::vector<RingStep>& steps_;
  StepKind kind_;
  size_t elem_;
  std::vector<size_t> processed_;
  size_t send_step_ = 0, send_offset_ = 0;
  size_t recv_step_ = 0;
};

}  // namespace

absl::Status RunRingSteps(const RingContext& ring, const std::vector<RingStep>& steps,
                          StepKind kind, const char* what) {
  if (ring.size == 1 || steps.empty()) return absl::OkStatus();
  return Runner(ring, steps, kind).Run(what);
}

}  // namespace dlp::runtime
