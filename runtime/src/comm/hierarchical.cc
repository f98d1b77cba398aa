#include "comm/hierarchical.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "comm/algorithms/direct.h"
#include "comm/algorithms/reduce.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

// One slot: measured across namespaces at 1 Gbit/s, 1 MiB pieces keep the
// leaders' links busiest (4 and 16 MiB leave them idle while a host fills
// or drains the pipeline; 512 KiB pays more ring start-ups).
constexpr size_t kPieceBytes = ShmGroup::kSlotBytes;

// How many pieces a stage has finished; a failed stage stops the later ones.
class Progress {
 public:
  void Advance(size_t done) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = done;
    }
    cv_.notify_all();
  }
  void Abort() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_ = true;
    }
    cv_.notify_all();
  }
  // False when the stage failed before finishing `done` pieces.
  bool WaitFor(size_t done) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return aborted_ || done_ >= done; });
    return done_ >= done;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t done_ = 0;
  bool aborted_ = false;
};

// This host's ranks all get the host's reduction of [send, send + count).
absl::Status LocalReduce(Hierarchy& h, const void* send, void* recv, size_t count, dlp_dtype t,
                         dlp_op op) {
  ShmGroup& local = *h.local;
  if (local.size() == 1) {
    if (send != recv) std::memcpy(recv, send, count * DTypeSize(t));
    return absl::OkStatus();
  }
  if (ChooseAllreduce(h.local_shape, count * DTypeSize(t)) == Algo::kOneShot) {
    return OneShotAllreduce(local, send, recv, count, t, op);
  }
  return DirectAllreduce(local, 0, send, recv, count, t, op, DirectChunkBytes(h.local_shape),
                         ResultCopy(count * DTypeSize(t), local.size()));
}

}  // namespace

// Round k: the root waits until every rank entered round k-1 (so all finished
// reading round k-2's slot, which round k reuses), stages and publishes in=k;
// the others publish in=k on entering, wait for the root's, and copy.
absl::Status GroupBroadcast(ShmGroup& g, int lane, void* buf, size_t bytes, int root) {
  char* p = static_cast<char*>(buf);
  for (size_t at = 0; at < bytes; at += ShmGroup::kSlotBytes) {
    const size_t n = std::min(ShmGroup::kSlotBytes, bytes - at);
    const uint64_t k = g.NextRound(lane);
    if (g.rank() == root) {
      if (absl::Status s = g.WaitForAll(lane, ShmGroup::kIn, k - 1, "broadcast"); !s.ok()) return s;
      std::memcpy(g.in(root, lane, k), p + at, n);
      g.Publish(lane, ShmGroup::kIn, k);
    } else {
      g.Publish(lane, ShmGroup::kIn, k);
      if (absl::Status s = g.WaitFor(root, lane, ShmGroup::kIn, k, "broadcast"); !s.ok()) return s;
      std::memcpy(p + at, g.in(root, lane, k), n);
    }
  }
  g.Flush(lane);
  return absl::OkStatus();
}

absl::Status HierarchicalAllreduce(Hierarchy& h, const void* send, void* recv, size_t count,
                                   dlp_dtype t, dlp_op op) {
  const size_t elem = DTypeSize(t);
  const dlp_op sum_op = op == DLP_AVG ? DLP_SUM : op;  // divided once, at the end
  const size_t piece = std::max<size_t>(1, kPieceBytes / elem);
  const size_t pieces = (count + piece - 1) / piece;
  auto in = [&](size_t i) { return static_cast<const char*>(send) + i * piece * elem; };
  auto out = [&](size_t i) { return static_cast<char*>(recv) + i * piece * elem; };
  auto size = [&](size_t i) { return std::min(piece, count - i * piece); };

  Progress reduced, ringed;
  absl::Status ring_status, bcast_status;
  auto ring_stage = [&] {
    for (size_t i = 0; i < pieces && ring_status.ok(); ++i) {
      if (!reduced.WaitFor(i + 1)) return;
      ring_status = RingAllreduce(h.leaders, out(i), out(i), size(i), t, sum_op);
      ring_status.ok() ? ringed.Advance(i + 1) : ringed.Abort();
    }
  };
  auto bcast_stage = [&] {
    if (h.local->size() == 1) return;
    for (size_t i = 0; i < pieces && bcast_status.ok(); ++i) {
      if (!(h.leader() ? ringed : reduced).WaitFor(i + 1)) return;
      bcast_status = GroupBroadcast(*h.local, 1, out(i), size(i) * elem, 0);
    }
  };
  // One piece: the stages in turn on this thread; more: a thread per stage.
  std::vector<std::thread> threads;
  if (pieces > 1) {
    if (h.leader()) threads.emplace_back(ring_stage);
    threads.emplace_back(bcast_stage);
  }
  absl::Status local_status;
  for (size_t i = 0; i < pieces; ++i) {
    local_status = LocalReduce(h, in(i), out(i), size(i), t, sum_op);
    if (!local_status.ok()) {
      reduced.Abort();
      break;
    }
    reduced.Advance(i + 1);
  }
  if (pieces == 1 && local_status.ok()) {
    if (h.leader()) ring_stage();
    if (ring_status.ok()) bcast_stage();
  }
  for (std::thread& th : threads) th.join();
  for (const absl::Status& s : {local_status, ring_status, bcast_status}) {
    if (!s.ok()) return s;
  }
  if (op == DLP_AVG) FinishAverage(recv, count, t, h.size);
  return absl::OkStatus();
}

}  // namespace dlp::runtime
