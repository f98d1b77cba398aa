// Allreduce straight through shared memory, for groups on one host
// (shm_group.h). The buffer is processed in rounds of at most one slot.
//
// Direct (reduce-scatter + allgather without ring hops), per round:
//   1. rank r copies its input, less slice r, into its in slot; publishes in=k
//   2. once every rank published in=k, rank r reduces slice r of all N inputs
//      (its own from its private buffer) in rank order into its out slot;
//      publishes out=k
//   3. rank r copies slice j from rank j's out slot as soon as j published out=k
// Each element is reduced once, by one rank, in a fixed order, then copied:
// the results are bit-identical everywhere. Per byte a rank moves the input
// once into the (cache-resident) slot and the result once out of it, instead
// of the ring's 2(N-1) hops.
//
// One-shot (latency path), per round: every rank stages its whole input,
// publishes in=k, waits for all, and reduces the whole buffer itself from
// the N slots in rank order: the same operations on the same bytes on every
// rank, so again bit-identical; one synchronisation instead of two.
//
// Why one out slot and two in slots suffice: a rank enters round k+1 only
// after step 3 of round k saw every out=k, so every rank finished reading the
// in slots of round k-1 (same parity as k+1); and it writes its out slot in
// round k+1 only after seeing every in=k+1, so every rank finished copying
// round k's out slots.
#pragma once

#include "comm/algorithms/reduce.h"
#include "comm/transports/shm_group.h"
#include "dlp/comm.h"

namespace dlp::runtime {

// `send` may equal `recv`. Runs on `lane`; `chunk_bytes` (≤ kSlotBytes) per round;
// results written with `copy_out` (reduce.h's ResultCopy for the whole message).
absl::Status DirectAllreduce(ShmGroup& group, int lane, const void* send, void* recv, size_t count,
                             dlp_dtype t, dlp_op op, size_t chunk_bytes, CopyFn copy_out);

// Direct over every lane at once, one contiguous part each (channels.h).
absl::Status LanedDirectAllreduce(ShmGroup& group, const void* send, void* recv, size_t count,
                                  dlp_dtype t, dlp_op op, size_t chunk_bytes);

// Reduce-scatter, per round: rank r stages one piece of every block but its
// own in its in slot, publishes in=k, and once every rank has, reduces piece r
// of the N slots in rank order into recv. No out slot: a rank writes the in
// slot of round k+2 only after every rank published in=k+1, that is, after
// every rank finished reading round k. recv (count elements) gets block r,
// the `count` elements at send + r * stride; `stage_own` when recv overlaps
// send (in place), so that writing recv never changes an input still read.
absl::Status DirectReduceScatter(ShmGroup& group, int lane, const void* send, void* recv,
                                 size_t count, size_t stride, dlp_dtype t, dlp_op op,
                                 size_t chunk_bytes, bool stage_own);

// Reduce-scatter of blocks of `count_per_rank` over every lane, one contiguous
// part of each block per lane.
absl::Status LanedDirectReduceScatter(ShmGroup& group, const void* send, void* recv,
                                      size_t count_per_rank, dlp_dtype t, dlp_op op,
                                      size_t chunk_bytes);

// Allgather, per round: rank r stages a piece of its block in its in slot,
// publishes in=k, and copies each peer's piece as soon as that peer published
// in=k. The in slots alternate by parity as above: a rank reaches round k+2
// only after seeing every peer's in=k+1, which each published after copying
// round k. recv holds N blocks of `count`; rank j's block is at j * stride.
absl::Status DirectAllgather(ShmGroup& group, int lane, const void* send, void* recv, size_t count,
                             size_t stride, dlp_dtype t, size_t chunk_bytes);

// Allgather of blocks of `count_per_rank` over every lane.
absl::Status LanedDirectAllgather(ShmGroup& group, const void* send, void* recv,
                                  size_t count_per_rank, dlp_dtype t, size_t chunk_bytes);

// Requires count * size(t) ≤ ShmGroup::kSlotBytes. On lane 0.
absl::Status OneShotAllreduce(ShmGroup& group, const void* send, void* recv, size_t count,
                              dlp_dtype t, dlp_op op);

// No rank returns before every rank entered. On lane 0.
absl::Status GroupBarrier(ShmGroup& group);

}  // namespace dlp::runtime
