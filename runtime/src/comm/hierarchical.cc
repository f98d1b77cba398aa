#include "comm/hierarchical.h"

#include <algorithm>
#include <cstring>

#include "comm/direct.h"
#include "comm/dtype.h"
#include "comm/reduce.h"

namespace dlp::runtime {

// Round k: the root waits until every rank entered round k-1 (so all finished
// reading round k-2's slot, which round k reuses), stages and publishes in=k;
// the others publish in=k on entering, wait for the root's, and copy.
absl::Status GroupBroadcast(ShmGroup& g, void* buf, size_t bytes, int root) {
  char* p = static_cast<char*>(buf);
  for (size_t at = 0; at < bytes; at += ShmGroup::kSlotBytes) {
    const size_t n = std::min(ShmGroup::kSlotBytes, bytes - at);
    const uint64_t k = g.NextRound(0);
    if (g.rank() == root) {
      if (absl::Status s = g.WaitForAll(0, ShmGroup::kIn, k - 1, "broadcast"); !s.ok()) return s;
      std::memcpy(g.in(root, 0, k), p + at, n);
      g.Publish(0, ShmGroup::kIn, k);
    } else {
      g.Publish(0, ShmGroup::kIn, k);
      if (absl::Status s = g.WaitFor(root, 0, ShmGroup::kIn, k, "broadcast"); !s.ok()) return s;
      std::memcpy(p + at, g.in(root, 0, k), n);
    }
  }
  g.Flush(0);
  return absl::OkStatus();
}

absl::Status HierarchicalAllreduce(Hierarchy& h, const void* send, void* recv, size_t count,
                                   dlp_dtype t, dlp_op op) {
  const size_t bytes = count * DTypeSize(t);
  const dlp_op sum_op = op == DLP_AVG ? DLP_SUM : op;  // divided once, at the end
  ShmGroup& local = *h.local;
  absl::Status s;
  if (local.size() == 1) {
    if (send != recv) std::memcpy(recv, send, bytes);
  } else if (ChooseAllreduce(h.local_shape, bytes) == Algo::kOneShot) {
    s = OneShotAllreduce(local, send, recv, count, t, sum_op);
  } else {
    s = DirectAllreduce(local, 0, send, recv, count, t, sum_op, DirectChunkBytes(h.local_shape));
  }
  if (!s.ok()) return s;
  if (h.leader()) {
    s = RingAllreduce(h.leaders, recv, recv, count, t, sum_op);
    if (!s.ok()) return s;
  }
  if (local.size() > 1) {
    s = GroupBroadcast(local, recv, bytes, 0);
    if (!s.ok()) return s;
  }
  if (op == DLP_AVG) FinishAverage(recv, count, t, h.size);
  return absl::OkStatus();
}

}  // namespace dlp::runtime
