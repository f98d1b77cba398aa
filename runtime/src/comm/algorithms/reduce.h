// Element-wise reduction kernels of the ring algorithms. The loops are written
// so that GCC vectorises them (restrict pointers, `#pragma GCC ivdep`), with
// AVX2 clones picked at load time on machines that have it. float16 and
// bfloat16 are reduced through float. dst (and ReduceFrom's a) must be aligned
// for the element type; the source may sit at any address (a link's buffer).
#pragma once

#include <cstddef>
#include <vector>

#include "dlp/comm.h"

namespace dlp::runtime {

// dst[i] = op(dst[i], src[i]) for i < count. AVG reduces like SUM (the
// division happens once, in FinishAverage). dst and src must not overlap.
void ReduceInto(void* dst, const void* src, size_t count, dlp_dtype t, dlp_op op);

// dst[i] = op(a[i], b[i]); dst may equal a (then it is ReduceInto(dst, b)).
void ReduceFrom(void* dst, const void* a, const void* b, size_t count, dlp_dtype t, dlp_op op);

// dst = op over sources[0..n) in that order (n ≥ 2), then the average's division.
void ReduceAll(char* dst, const std::vector<const char*>& sources, size_t count, dlp_dtype t,
               dlp_op op);

// How an allreduce among `ranks` ranks of one host writes results of `bytes`
// a rank: streamed once every rank's send and receive buffers (2·N·S) would
// fill more than three quarters of the last-level cache, the share glibc's
// memcpy also keeps before it streams; below that through the caches, where
// the ranks' next reads find them. Streamed means with non-temporal stores
// where the CPU has them, which skip the read-for-ownership of `dst`.
using CopyFn = void (*)(char* dst, const char* src, size_t n);
CopyFn ResultCopy(size_t bytes, int ranks);
// ResultCopy's streamed copy.
void CopyStreaming(char* dst, const char* src, size_t n);

// dst[i] /= ranks (integer division for integer types).
void FinishAverage(void* dst, size_t count, dlp_dtype t, int ranks);

}  // namespace dlp::runtime
