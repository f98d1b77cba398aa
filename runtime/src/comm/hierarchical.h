// Hierarchical allreduce for groups that span hosts with several ranks on a
// host: the ranks of each host reduce over shared memory (direct or
// one-shot), one leader per host (its lowest rank) runs the ring among the
// leaders over TCP, and each leader broadcasts the result to its host through
// its segment. The slow links carry 2(H-1)/H of the message for H hosts
// instead of the flat ring's 2(N-1)/N, with 2(H-1) latencies instead of 2(N-1).
//
// Messages above a piece (1 MiB) are pipelined: the host reduces piece i+1
// (group lane 0) while the leaders' ring carries piece i and the host
// receives piece i-1 (lane 1), each stage on its own thread, so that the slow
// links stay busy and the local stages hide behind them.
//
// Bit-identical everywhere: a host's ranks share one local result, the
// leaders' ring gives every leader the same bits, and the broadcast copies.
#pragma once

#include <memory>

#include "comm/algorithms/ring.h"
#include "comm/selection/algo_select.h"
#include "comm/selection/transport_select.h"
#include "comm/transports/shm_group.h"

namespace dlp::runtime {

struct Hierarchy {
  static constexpr int kLanes = 2;  // local reduce, broadcast
  int size = 1;                     // ranks in the whole group
  std::unique_ptr<ShmGroup> local;  // this host's ranks; this rank is local->rank()
  GroupShape local_shape;
  RingLinks leader_links;  // set on leaders only
  RingContext leaders;     // the leaders' ring (host index, host count)
  bool leader() const { return local->rank() == 0; }
};

// `send` may equal `recv`.
absl::Status HierarchicalAllreduce(Hierarchy& h, const void* send, void* recv, size_t count,
                                   dlp_dtype t, dlp_op op);

// Copies `bytes` from local rank `root`'s `buf` to every local rank's, through
// root's in slots of `lane`, in rounds of a slot.
absl::Status GroupBroadcast(ShmGroup& group, int lane, void* buf, size_t bytes, int root);

}  // namespace dlp::runtime
