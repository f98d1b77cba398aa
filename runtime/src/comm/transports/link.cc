#include "comm/transports/link.h"

#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>

#include "absl/time/clock.h"

namespace dlp::runtime {
namespace {

timespec DurationToTimespec(absl::Duration d) {
  if (d < absl::ZeroDuration()) d = absl::ZeroDuration();
  return absl::ToTimespec(d);
}

}  // namespace

void Doorbell::Ring() {
  seq.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers.load(std::memory_order_seq_cst) > 0) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&seq), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }
}

void Doorbell::Sleep(uint32_t seen, absl::Duration max) {
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (seq.load(std::memory_order_seq_cst) == seen) {
    timespec ts = DurationToTimespec(max);
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&seq), FUTEX_WAIT, seen, &ts, nullptr, 0);
  }
  sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

void Doorbell::WakeIfSleeping() {
  if (sleepers.load(std::memory_order_seq_cst) == 0) return;
  seq.fetch_add(1, std::memory_order_seq_cst);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&seq), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

bool YieldUntil(const std::function<bool()>& ready, absl::Duration budget) {
  const absl::Time end = absl::Now() + budget;
  while (true) {
    // Several looks per clock read: a yield with nobody else to run is short.
    for (int i = 0; i < 8; ++i) {
      if (ready()) return true;
      sched_yield();
    }
    if (absl::Now() > end) return ready();
  }
}

Doorbell* BellOf(SendLink* send, RecvLink* recv) {
  if (send != nullptr && send->wait_source().bell != nullptr) return send->wait_source().bell;
  if (recv != nullptr) return recv->wait_source().bell;
  return nullptr;
}

void WaitForLinks(SendLink* send, bool want_send, RecvLink* recv, bool want_recv,
                  uint32_t seen_bell, absl::Duration max, bool share_cores) {
  pollfd fds[2];
  int nfds = 0;
  Doorbell* bell = nullptr;
  if (want_send && send != nullptr) {
    WaitSource s = send->wait_source();
    if (s.fd >= 0) fds[nfds++] = {s.fd, POLLOUT, 0};
    if (s.bell != nullptr) bell = s.bell;
  }
  if (want_recv && recv != nullptr) {
    WaitSource s = recv->wait_source();
    if (s.fd >= 0) fds[nfds++] = {s.fd, POLLIN, 0};
    if (s.bell != nullptr) bell = s.bell;
  }
  if (nfds > 0 && bell != nullptr) {
    // Mixed transports: poll the socket briefly, then look at the ring again.
    timespec ts = DurationToTimespec(std::min(max, absl::Microseconds(200)));
    ppoll(fds, nfds, &ts, nullptr);
  } else if (nfds > 0) {
    timespec ts = DurationToTimespec(max);
    ppoll(fds, nfds, &ts, nullptr);
  } else if (bell != nullptr) {
    auto rang = [&] { return bell->seq.load(std::memory_order_seq_cst) != seen_bell; };
    // As the shared-memory group waits (shm_group.h): a rank with a core of
    // its own spins first, one that shares its core yields it.
    if (share_cores) {
      if (YieldUntil(rang, std::min(max, kYieldBudget))) return;
    } else if (SpinFor(rang, std::min(max, kSpinBudget))) {
      return;
    }
    bell->Sleep(seen_bell, max);
  }
}

}  // namespace dlp::runtime
