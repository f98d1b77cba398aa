#include "comm/algorithms/reduce_to_each.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "comm/algorithms/reduce.h"
#include "comm/core/dtype.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace dlp::runtime {
namespace {

// Through a buffer of this size, a block at a time: the kernels' fallback.
constexpr size_t kBlockBytes = 16 << 10;

void ThroughBlocks(const std::vector<char*>& dsts, const std::vector<const char*>& sources,
                   size_t count, dlp_dtype t, dlp_op op) {
  alignas(64) char block[kBlockBytes];
  const size_t elem = DTypeSize(t), per_block = kBlockBytes / elem;
  std::vector<const char*> at(sources.size());
  for (size_t start = 0; start < count; start += per_block) {
    const size_t m = std::min(per_block, count - start);
    for (size_t j = 0; j < sources.size(); ++j) at[j] = sources[j] + start * elem;
    ReduceAll(block, at, m, t, op);
    for (char* dst : dsts) CopyStreaming(dst + start * elem, block, m * elem);
  }
}

#if defined(__x86_64__)

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The sum (or average) of element i of every source, in source order.
template <typename T>
T SumAt(const std::vector<const char*>& sources, size_t i, T ranks, bool average) {
  T acc = Load<T>(sources[0] + i * sizeof(T)) + Load<T>(sources[1] + i * sizeof(T));
  for (size_t j = 2; j < sources.size(); ++j) acc = acc + Load<T>(sources[j] + i * sizeof(T));
  return average ? acc / ranks : acc;
}

template <typename Vec>
void Stream(char* p, Vec v) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), reinterpret_cast<__m128i>(v));
}

// 16-byte vectors: SSE2, which every x86-64 has; the loop is bound by memory.
// Four of them a turn, one cache line of every destination, held in registers.
template <typename T>
void StreamSumToEach(const std::vector<char*>& dsts, const std::vector<const char*>& sources,
                     size_t count, bool average) {
  typedef T Vec __attribute__((vector_size(16)));
  constexpr size_t kLine = 4 * sizeof(Vec);
  const T ranks = static_cast<T>(sources.size());
  Vec by;
  for (size_t k = 0; k < sizeof(Vec) / sizeof(T); ++k) by[k] = ranks;
  const char* const* src = sources.data();
  char* const* dst = dsts.data();
  const size_t ns = sources.size(), nd = dsts.size();
  size_t i = 0;
  auto scalar_until = [&](size_t end) {
    for (; i < end; ++i) {
      const T v = SumAt<T>(sources, i, ranks, average);
      for (size_t d = 0; d < nd; ++d) std::memcpy(dst[d] + i * sizeof(T), &v, sizeof(T));
    }
  };
  // Up to where every destination is 16-byte aligned (they agree modulo 16).
  const uintptr_t misaligned = reinterpret_cast<uintptr_t>(dst[0]) % sizeof(Vec);
  scalar_until(std::min(count, misaligned == 0 ? 0 : (sizeof(Vec) - misaligned) / sizeof(T)));
  for (; (i + kLine / sizeof(T)) <= count; i += kLine / sizeof(T)) {
    const size_t at = i * sizeof(T);
    Vec a0 = Load<Vec>(src[0] + at) + Load<Vec>(src[1] + at);
    Vec a1 = Load<Vec>(src[0] + at + 16) + Load<Vec>(src[1] + at + 16);
    Vec a2 = Load<Vec>(src[0] + at + 32) + Load<Vec>(src[1] + at + 32);
    Vec a3 = Load<Vec>(src[0] + at + 48) + Load<Vec>(src[1] + at + 48);
    for (size_t j = 2; j < ns; ++j) {
      const char* s = src[j] + at;
      a0 = a0 + Load<Vec>(s);
      a1 = a1 + Load<Vec>(s + 16);
      a2 = a2 + Load<Vec>(s + 32);
      a3 = a3 + Load<Vec>(s + 48);
    }
    if (average) {
      a0 = a0 / by;
      a1 = a1 / by;
      a2 = a2 / by;
      a3 = a3 / by;
    }
    for (size_t d = 0; d < nd; ++d) {
      char* p = dst[d] + at;
      Stream(p, a0);
      Stream(p + 16, a1);
      Stream(p + 32, a2);
      Stream(p + 48, a3);
    }
  }
  scalar_until(count);
  // Streamed stores are ordered before what follows (the round that publishes them).
  _mm_sfence();
}

// Whether the destinations allow the one-pass loop: aligned for t, and alike
// modulo 16 so that one head brings every destination to a vector boundary.
bool AlignedAlike(const std::vector<char*>& dsts, size_t elem) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(dsts[0]) % 16;
  if (first % elem != 0) return false;
  return std::all_of(dsts.begin(), dsts.end(),
                     [&](char* d) { return reinterpret_cast<uintptr_t>(d) % 16 == first; });
}

#endif  // __x86_64__

}  // namespace

void ReduceAllStreamedToEach(const std::vector<char*>& dsts,
                             const std::vector<const char*>& sources, size_t count, dlp_dtype t,
                             dlp_op op) {
  if (dsts.empty() || count == 0) return;
#if defined(__x86_64__)
  if ((op == DLP_SUM || op == DLP_AVG) && AlignedAlike(dsts, DTypeSize(t))) {
    const bool average = op == DLP_AVG;
    switch (t) {
      case DLP_FLOAT32:
        return StreamSumToEach<float>(dsts, sources, count, average);
      case DLP_FLOAT64:
        return StreamSumToEach<double>(dsts, sources, count, average);
      case DLP_INT32:
        return StreamSumToEach<int32_t>(dsts, sources, count, average);
      case DLP_INT64:
        return StreamSumToEach<int64_t>(dsts, sources, count, average);
      default:
        break;
    }
  }
#endif
  ThroughBlocks(dsts, sources, count, t, op);
}

}  // namespace dlp::runtime
