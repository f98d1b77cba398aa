// Ring algorithms over a rank's two links (see link.h).
//
// Allreduce is the bandwidth-optimal ring: the buffer is cut into one segment
// per rank; in N-1 reduce-scatter steps every rank sends one segment to the
// next rank and reduces the segment arriving from the previous one into its
// buffer, so that after the last step rank r owns the fully reduced segment
// r+1; N-1 all-gather steps then pass the finished segments around the ring.
// Each rank sends and receives 2(N-1)/N of the buffer.
//
// The steps are pipelined: the bytes of a step are sent as soon as the
// corresponding bytes of the previous step have been received and reduced,
// in chunks, so a segment flows around the ring without waiting for whole
// steps, and the only buffers are the links' bounded staging rings.
//
// Every element is reduced once, in the fixed order of the ring, by its
// owner, then copied to everyone: results are bit-identical on all ranks.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "comm/transports/peer_error.h"
#include "comm/transports/ring_links.h"
#include "dlp/comm.h"

namespace dlp::runtime {

// `send` may equal `recv` (in place).
absl::Status RingAllreduce(const RingContext& ring, const void* send, void* recv, size_t count,
                           dlp_dtype t, dlp_op op);
// A pipelined chain from `root` along the ring.
absl::Status RingBroadcast(const RingContext& ring, void* buf, size_t count, dlp_dtype t, int root);
// The reduce-scatter half of the allreduce, shifted by one rank so that rank r
// finishes block r: recv (count elements) = op over the ranks of the `count`
// elements at send + r * stride. `scratch` holds the partial sums, at the same
// offsets as send; it may be send itself when the caller lets it be overwritten.
// recv may lie inside send's block r (in place).
absl::Status RingReduceScatter(const RingContext& ring, const void* send, void* recv, size_t count,
                               size_t stride, dlp_dtype t, dlp_op op, void* scratch);
// recv holds size * count_per_rank elements, rank r's block at r * count_per_rank.
absl::Status RingAllgather(const RingContext& ring, const void* send, void* recv,
                           size_t count_per_rank, dlp_dtype t);

}  // namespace dlp::runtime
