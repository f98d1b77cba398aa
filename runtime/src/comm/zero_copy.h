// Allreduce straight between buffers in shared memory: when every rank's send
// and receive buffers lie in blocks of dlp_shared_alloc (shared_window.h),
// no byte is staged. On lane 0 of the group (shm_group.h):
//   0. each rank writes where its buffers lie (window, offset) in its note,
//      publishes in=k, and waits for every rank's in=k; if any rank's buffers
//      are not in shared memory, every rank sees it and all fall back to the
//      staged algorithms (nothing was written yet)
//   1. rank r reduces slice r of all N send buffers, in rank order, into its
//      receive buffer (through a small cache-resident block, so that in place
//      it never overwrites an input still read); publishes out=k
//   2. rank r copies slice j from rank j's receive buffer once j published
//      out=k
//   3. a barrier round (in=k+1): no rank returns, and lets its caller reuse
//      its buffers, while a peer may still read them
// Each element is reduced once, by one rank, in a fixed order: the results
// are bit-identical everywhere, as with the direct algorithm. Per byte a rank
// reads its share of the inputs and the others' results once and writes its
// result once: the memory traffic of about one and a half copies, against the
// staged direct algorithm's copy in, reduction and copy out.
#pragma once

#include "comm/shared_window.h"
#include "comm/shm_group.h"
#include "dlp/comm.h"

namespace dlp::runtime {

// From this size up, an allreduce on a host whose communicator made shared
// windows first asks whether every rank's buffers lie in them (step 0).
inline constexpr size_t kZeroCopyMinBytes = size_t{1} << 20;

// Steps 0 to 3 when every rank's buffers lie in `windows`; sets *ran to
// whether they did (when not, nothing else happened but step 0's round).
absl::Status ZeroCopyAllreduce(ShmGroup& group, const WindowRegistry& windows, const void* send,
                               void* recv, size_t count, dlp_dtype t, dlp_op op, bool* ran);

}  // namespace dlp::runtime
