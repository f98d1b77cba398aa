// Allreduce straight between buffers in shared memory: when every rank's send
// and receive buffers lie in blocks of dlp_shared_alloc (shared_window.h),
// no byte is staged. On lane 0 of the group (shm_group.h):
//   0. each rank writes where its buffers lie (window, offset) in its note,
//      publishes in=k, and waits for every rank's in=k; if any rank's buffers
//      are not in shared memory, every rank sees it and all fall back to the
//      staged algorithms (nothing was written yet)
//   1. rank r reduces slice r of all N send buffers, in rank order, a block
//      at a time, and writes each block's result into every rank's receive
//      buffer (reduce_to_each.h); then it takes on the blocks of the
//      peers' slices that no rank has claimed yet (a counter per slice), so
//      a rank the host slows down delays the call by a block, not its slice.
//      With more ranks than cores, only one rank a core claims (ClaimsBlocks).
//      In place this never overwrites an input still read: a block of every
//      input is read by the one rank that claimed it, before it writes it
//   2. a barrier round (in=k+1): no rank returns, and lets its caller use or
//      reuse its buffers, while a peer may still read or write them
// Each element is reduced once, by one rank, in a fixed order: the results
// are bit-identical everywhere, as with the direct algorithm. Per byte a rank
// reads its share of the inputs once and writes its share of every result
// once: a rank moves 2·S bytes of memory, as one memcpy of S does, where
// fetching the peers' results instead of writing them (2.5·S) or staging the
// inputs costs more. The results are streamed past the caches at every size:
// all but 1/N of them are for other ranks, to be read on other cores, and
// streaming measured faster from 1 MiB, the smallest call that comes here.
#pragma once

#include <vector>

#include "comm/transports/shared_window.h"
#include "comm/transports/shm_group.h"
#include "dlp/comm.h"

namespace dlp::runtime {

// From this size up, an allreduce on a host whose communicator made shared
// windows first asks whether every rank's buffers lie in them (step 0).
inline constexpr size_t kZeroCopyMinBytes = size_t{1} << 20;

// The block a rank claims at a time. With a core per rank, 128 KiB: longer
// runs for the prefetchers and fewer claims (2 ranks, 16 MiB: 1.23× against
// 32 KiB). Ranks that share cores take turns, and smaller blocks share the
// work out more evenly.
inline size_t ZeroCopyBlockBytes(bool oversubscribed) {
  return oversubscribed ? size_t{32} << 10 : size_t{128} << 10;
}

// Every rank's buffers, mapped in this process.
struct SharedBuffers {
  std::vector<const char*> send;
  std::vector<char*> recv;
};

// Step 1: claims blocks until every slice's counter (ShmGroup::claim) is
// spent, and writes each claimed block's result into every `recv`. Each
// counter starts at 0, set by its owner before the round that starts step 1.
void ReduceAndDeliver(ShmGroup& group, const SharedBuffers& buffers, size_t count, dlp_dtype t,
                      dlp_op op);

// Whether rank `rank` of `ranks` claims blocks in step 1 when `workers` of
// them may. With more ranks than cores only as many ranks as there are cores
// claim, so that no two take turns on a core in the middle of a block; the
// others go on to step 2 and sleep there (4 ranks on 2 cores: 4 MiB 2.5–3×
// faster, 64 MiB 1.15–1.3×). The workers are spread over the ranks (0 and 2
// of 4): ranks bound in blocks of neighbours to a share of the cores, as
// Slurm's block distribution binds them, keep one on every share.
bool ClaimsBlocks(int rank, int ranks, int workers);

// The `workers` of ClaimsBlocks for `ranks` ranks on this host: one a core.
int ClaimingRanks(int ranks);

// What a zero-copy call did on this rank.
struct ZeroCopyRun {
  bool ran = false;  // every rank's buffers lay in windows, and steps 1 and 2 ran
  int threads = 0;   // the threads this rank reduced on in step 1 (0: it claimed none)
};

// Steps 0 to 2 when every rank's buffers lie in `windows`; says in *run
// whether they did (when not, nothing else happened but step 0's round).
// A claiming rank reduces on as many threads as SplitOverChannels would cut
// its share into (one a 512 KiB, up to `channels`: the communicator's, its
// cores per local rank), all claiming from the same counters. One core's
// copies do not fill a host's memory: with 16 cores, 2 ranks on one thread
// each reached 109 % of memcpy.
absl::Status ZeroCopyAllreduce(ShmGroup& group, const WindowRegistry& windows, int channels,
                               const void* send, void* recv, size_t count, dlp_dtype t, dlp_op op,
                               ZeroCopyRun* run);

}  // namespace dlp::runtime
