// The transport interface of the collectives. A ring algorithm talks to two
// neighbours: it sends to the next rank through a SendLink and receives from
// the previous rank through a RecvLink. Both are non-blocking so that one
// thread drives a ring step's send and receive at once (full duplex); when
// neither can progress the algorithm sleeps in WaitForLinks() until a socket
// is ready or a shared-memory peer rings this rank's doorbell.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "comm/transports/asymmetric_fence.h"

namespace dlp::runtime {

// A futex word in shared memory that a rank sleeps on; peers ring it after
// they add data to the rank's inbound ring or drain data it sent.
struct Doorbell {
  std::atomic<uint32_t> seq{0};
  std::atomic<uint32_t> sleepers{0};
  void Ring();
  // Sleeps while seq == seen, at most `max`.
  void Sleep(uint32_t seen, absl::Duration max);
  // For a flag protocol: the waker publishes its flag (seq_cst, or with
  // LightFence() after it) then calls WakeIfSleeping(), which makes no system
  // call when nobody sleeps; the sleeper calls SleepUnless(), which looks at
  // the flag again after announcing itself, so no wake-up is lost.
  // `light_wakers`: the wakers use LightFence() (asymmetric_fence.h).
  void WakeIfSleeping();
  template <typename Ready>
  void SleepUnless(const Ready& ready, absl::Duration max, bool light_wakers) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (light_wakers) HeavyFence();
    uint32_t seen = seq.load(std::memory_order_seq_cst);
    if (!ready()) Sleep(seen, max);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
};

// Spins briefly on `ready` (pausing the core between looks) and returns
// whether it became true; `spins` 0 looks once. Callers sleep afterwards.
template <typename Ready>
bool SpinUntil(const Ready& ready, int spins) {
  for (int i = 0;; ++i) {
    if (ready()) return true;
    if (i >= spins) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
}

// Spins on `ready` for up to `budget` and returns whether it became true: long
// enough to catch a peer that is running, where a futex wake-up costs more
// (on a VM, the halted core's exit to the host and back).
inline constexpr absl::Duration kSpinBudget = absl::Microseconds(30);
template <typename Ready>
bool SpinFor(const Ready& ready, absl::Duration budget) {
  const absl::Time end = absl::Now() + budget;
  while (!SpinUntil(ready, 64)) {
    if (absl::Now() > end) return ready();
  }
  return true;
}

// Where ranks share cores, a rank that waits yields its core until `ready`
// or `budget` passes, and returns whether it became true: the rank with work on
// that core runs at once, where a sleeper would need a futex wake-up and then
// wait to be scheduled back (Open MPI's yield_when_idle does the same). A rank
// whose peers are all descheduled or busy elsewhere sleeps after the budget.
inline constexpr absl::Duration kYieldBudget = absl::Milliseconds(2);
bool YieldUntil(const std::function<bool()>& ready, absl::Duration budget);

// How to sleep until a link may progress: a socket to poll, or a doorbell.
struct WaitSource {
  int fd = -1;
  Doorbell* bell = nullptr;
};

class SendLink {
 public:
  virtual ~SendLink() = default;
  virtual int peer() const = 0;
  // Takes up to n bytes without blocking; returns how many it took. An error
  // names the peer rank ("rank 3 closed the connection").
  virtual absl::StatusOr<size_t> TrySend(const char* data, size_t n) = 0;
  virtual WaitSource wait_source() const = 0;
  // Fails when the peer is known to be gone (exited, abandoned the ring).
  virtual absl::Status CheckPeer() = 0;
  // Tells the peer that this rank is leaving (after an error or on destroy).
  virtual void Abandon() = 0;
};

class RecvLink {
 public:
  virtual ~RecvLink() = default;
  virtual int peer() const = 0;
  // The received bytes not yet consumed that lie contiguously in memory
  // (possibly none). Does not block.
  virtual absl::StatusOr<absl::Span<const char>> Peek() = 0;
  virtual void Consume(size_t n) = 0;
  virtual WaitSource wait_source() const = 0;
  virtual absl::Status CheckPeer() = 0;
  virtual void Abandon() = 0;
};

// Sleeps until one of the wanted links may progress, `max` passes, or (for
// doorbells) the bell's sequence moves past `seen_bell`. With `share_cores`, a
// doorbell wait yields the core first (YieldUntil).
void WaitForLinks(SendLink* send, bool want_send, RecvLink* recv, bool want_recv,
                  uint32_t seen_bell, absl::Duration max, bool share_cores = false);

// The doorbell this rank sleeps on, if either link uses one.
Doorbell* BellOf(SendLink* send, RecvLink* recv);

}  // namespace dlp::runtime
