#include "comm/algorithms/ring.h"

#include <cstring>
#include <vector>

#include "comm/algorithms/reduce.h"
#include "comm/algorithms/ring_engine.h"
#include "comm/algorithms/segments.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

int Mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

absl::Status RingAllreduce(const RingContext& ring, const void* send, void* recv, size_t count,
                           dlp_dtype t, dlp_op op) {
  size_t elem = DTypeSize(t);
  char* buf = static_cast<char*>(recv);
  const char* in = static_cast<const char*>(send);
  const int n = ring.size, r = ring.rank;
  if (n == 1 || count == 0) {
    if (send != recv && count > 0) std::memcpy(buf, send, count * elem);
    return absl::OkStatus();
  }
  // Out of place, the input is read where it lies: the first send comes from
  // `send`, each reduction writes recv = send op incoming, and the one segment
  // never reduced here arrives finished in the all-gather. No extra copy.

  Segments seg(count, n, elem);
  std::vector<RingStep> steps;
  steps.reserve(2 * (n - 1));
  for (int k = 0; k < n - 1; ++k) {  // reduce-scatter
    int out = Mod(r - k, n), in_seg = Mod(r - k - 1, n);
    RingStep step{(k == 0 ? in : buf) + seg.offset(out), seg.bytes(out), k - 1,
                  buf + seg.offset(in_seg), seg.bytes(in_seg), /*reduce=*/true,
                  /*own=*/in + seg.offset(in_seg), op == DLP_AVG && k == n - 2};
    steps.push_back(step);
  }
  for (int k = 0; k < n - 1; ++k) {  // all-gather
    int out = Mod(r + 1 - k, n), in_seg = Mod(r - k, n);
    steps.push_back({buf + seg.offset(out), seg.bytes(out), n - 2 + k, buf + seg.offset(in_seg),
                     seg.bytes(in_seg), /*reduce=*/false, nullptr, false});
  }
  return RunRingSteps(ring, steps, {t, op}, "allreduce");
}

absl::Status RingReduceScatter(const RingContext& ring, const void* send, void* recv, size_t count,
                               size_t stride, dlp_dtype t, dlp_op op, void* scratch) {
  const size_t elem = DTypeSize(t);
  const int n = ring.size, r = ring.rank;
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  char* partial = static_cast<char*>(scratch);
  const size_t bytes = count * elem;
  auto block = [&](int j) { return static_cast<size_t>(j) * stride * elem; };
  if (n == 1 || count == 0) {
    if (in != out && count > 0) std::memmove(out, in, bytes);
    return absl::OkStatus();
  }
  // Step k passes on block r-k-1 (reduced here at step k-1, or this rank's own
  // at k = 0) and reduces block r-k-2 arriving: the last step, k = n-2, brings
  // block r. Block r is never sent, so recv may overwrite it.
  std::vector<RingStep> steps;
  steps.reserve(static_cast<size_t>(n - 1));
  for (int k = 0; k < n - 1; ++k) {
    const int give = Mod(r - k - 1, n), take = Mod(r - k - 2, n);
    const bool last = k == n - 2;
    steps.push_back({(k == 0 ? in : partial) + block(give), bytes, k - 1,
                     last ? out : partial + block(take), bytes, /*reduce=*/true,
                     /*own=*/in + block(take), op == DLP_AVG && last});
  }
  return RunRingSteps(ring, steps, {t, op}, "reduce-scatter");
}

absl::Status RingBroadcast(const RingContext& ring, void* buf, size_t count, dlp_dtype t,
                           int root) {
  const int n = ring.size;
  if (n == 1 || count == 0) return absl::OkStatus();
  size_t bytes = count * DTypeSize(t);
  int position = Mod(ring.rank - root, n);  // distance from the root along the ring
  char* p = static_cast<char*>(buf);
  RingStep step;
  if (position > 0) {
    step.recv = p;
    step.recv_bytes = bytes;
  }
  if (position < n - 1) {
    step.send = p;
    step.send_bytes = bytes;
    step.send_after = position > 0 ? 0 : -1;  // forward what arrives
  }
  return RunRingSteps(ring, {step}, {t, DLP_SUM}, "broadcast");
}

absl::Status RingAllgather(const RingContext& ring, const void* send, void* recv,
                           size_t count_per_rank, dlp_dtype t) {
  const int n = ring.size, r = ring.rank;
  size_t block = count_per_rank * DTypeSize(t);
  char* out = static_cast<char*>(recv);
  char* mine = out + static_cast<size_t>(r) * block;
  if (send != mine && block > 0) std::memmove(mine, send, block);
  if (n == 1 || block == 0) return absl::OkStatus();
  std::vector<RingStep> steps;
  for (int k = 0; k < n - 1; ++k) {
    int give = Mod(r - k, n), take = Mod(r - k - 1, n);
    steps.push_back({out + static_cast<size_t>(give) * block, block, k - 1,
                     out + static_cast<size_t>(take) * block, block, false, nullptr, false});
  }
  return RunRingSteps(ring, steps, {t, DLP_SUM}, "allgather");
}

}  // namespace dlp::runtime
