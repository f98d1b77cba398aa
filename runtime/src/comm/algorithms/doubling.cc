#include "comm/algorithms/doubling.h"

#include <cstring>

#include "comm/algorithms/reduce.h"
#include "comm/algorithms/ring_engine.h"
#include "comm/core/dtype.h"

namespace dlp::runtime {
namespace {

int PowerOfTwoBelow(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// One exchange with `partner`, through the ring engine's step runner.
absl::Status Exchange(DoublingLinks& d, int partner, const RingStep& step, StepKind kind) {
  PairLink& link = d.partners.at(partner);
  RingContext pair{d.rank, d.size, link.send.get(), link.recv.get(), d.timeout};
  return RunRingSteps(pair, {step}, kind, "allreduce");
}

}  // namespace

std::vector<int> DoublingPartners(int rank, int size) {
  const int p = PowerOfTwoBelow(size);
  if (rank >= p) return {rank - p};
  std::vector<int> out;
  if (rank + p < size) out.push_back(rank + p);
  for (int d = 1; d < p; d *= 2) out.push_back(rank ^ d);
  return out;
}

absl::Status DoublingAllreduce(DoublingLinks& d, const void* send, void* recv, size_t count,
                               dlp_dtype t, dlp_op op) {
  const size_t bytes = count * DTypeSize(t);
  if (send != recv && bytes > 0) std::memcpy(recv, send, bytes);
  if (d.size == 1 || bytes == 0) return absl::OkStatus();
  const StepKind kind{t, op == DLP_AVG ? DLP_SUM : op};
  const int p = PowerOfTwoBelow(d.size), r = d.rank;
  char* cur = static_cast<char*>(recv);

  if (r >= p) {  // folded: hand the input over, take the result back
    RingStep give;
    give.send = cur;
    give.send_bytes = bytes;
    if (absl::Status s = Exchange(d, r - p, give, kind); !s.ok()) return s;
    RingStep take;
    take.recv = cur;
    take.recv_bytes = bytes;
    return Exchange(d, r - p, take, kind);
  }
  if (r + p < d.size) {
    RingStep fold;
    fold.recv = cur;
    fold.recv_bytes = bytes;
    fold.reduce = true;
    if (absl::Status s = Exchange(d, r + p, fold, kind); !s.ok()) return s;
  }
  std::vector<char> scratch(bytes);
  char* next = scratch.data();
  for (int dist = 1; dist < p; dist *= 2) {
    RingStep step;
    step.send = cur;
    step.send_bytes = bytes;
    step.recv = next;
    step.recv_bytes = bytes;
    step.reduce = true;
    step.own = cur;  // next = cur op theirs, while cur is being sent
    if (absl::Status s = Exchange(d, r ^ dist, step, kind); !s.ok()) return s;
    std::swap(cur, next);
  }
  if (cur != recv) std::memcpy(recv, cur, bytes);
  if (op == DLP_AVG) FinishAverage(recv, count, t, d.size);
  if (r + p < d.size) {
    RingStep unfold;
    unfold.send = static_cast<char*>(recv);
    unfold.send_bytes = bytes;
    return Exchange(d, r + p, unfold, kind);
  }
  return absl::OkStatus();
}

}  // namespace dlp::runtime
