// Recursive doubling: the latency path between hosts. With P the largest
// power of two ≤ N, ranks P..N-1 first hand their input to rank r-P (fold);
// then in log2(P) steps rank r exchanges its whole partial result with rank
// r XOR 2^i and both combine "mine op theirs"; finally the folded ranks get
// the result back. log2(P) (+2) latencies instead of the ring's 2(N-1), at
// the price of moving the whole message at every step: for small messages.
//
// Partners combine the same two operands (commutative, one rounding), and
// every rank runs the same tree, so the results are bit-identical.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "comm/transports/link.h"
#include "dlp/comm.h"

namespace dlp::runtime {

// The partners rank `rank` of `size` exchanges with, in step order.
std::vector<int> DoublingPartners(int rank, int size);

struct PairLink {
  std::unique_ptr<SendLink> send;
  std::unique_ptr<RecvLink> recv;
};

struct DoublingLinks {
  int rank = 0;
  int size = 1;
  std::map<int, PairLink> partners;  // by rank: every DoublingPartners entry
  absl::Duration timeout = absl::Seconds(60);
};

// `send` may equal `recv`.
absl::Status DoublingAllreduce(DoublingLinks& links, const void* send, void* recv, size_t count,
                               dlp_dtype t, dlp_op op);

}  // namespace dlp::runtime
