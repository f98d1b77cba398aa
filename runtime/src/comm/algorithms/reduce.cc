#include "comm/algorithms/reduce.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "comm/core/dtype.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace dlp::runtime {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DLP_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DLP_VECTOR_CLONES
#endif

template <typename T>
DLP_VECTOR_CLONES void Sum(T* __restrict dst, const T* __restrict src, size_t n) {
#pragma GCC ivdep
  for (size_t i = 0; i < n; ++i) dst[i] = dst[i] + src[i];
}

template <typename T>
DLP_VECTOR_CLONES void Min(T* __restrict dst, const T* __restrict src, size_t n) {
#pragma GCC ivdep
  for (size_t i = 0; i < n; ++i) dst[i] = src[i] < dst[i] ? src[i] : dst[i];
}

template <typename T>
DLP_VECTOR_CLONES void Max(T* __restrict dst, const T* __restrict src, size_t n) {
#pragma GCC ivdep
  for (size_t i = 0; i < n; ++i) dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

template <typename T>
DLP_VECTOR_CLONES void Sum3(T* __restrict dst, const T* __restrict a, const T* __restrict b, size_t n) {
#pragma GCC ivdep
  for (size_t i = 0; i < n; ++i) dst[i] = a[i] + b[i];
}

template <typename T>
void ReduceTyped(void* dst, const void* src, size_t n, dlp_op op) {
  T* d = static_cast<T*>(dst);
  const T* s = static_cast<const T*>(src);
  switch (op) {
    case DLP_SUM:
    case DLP_AVG: Sum(d, s, n); break;
    case DLP_MIN: Min(d, s, n); break;
    case DLP_MAX: Max(d, s, n); break;
  }
}

// 16-bit floats: widen a block to float, reduce there, narrow back.
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void ReduceHalf(void* dst, const void* src, size_t n, dlp_op op) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  const uint16_t* s = static_cast<const uint16_t*>(src);
  constexpr size_t kBlock = 512;
  float a[kBlock], b[kBlock];
  for (size_t start = 0; start < n; start += kBlock) {
    size_t m = std::min(kBlock, n - start);
    for (size_t i = 0; i < m; ++i) a[i] = ToFloat(d[start + i]);
    for (size_t i = 0; i < m; ++i) b[i] = ToFloat(s[start + i]);
    ReduceTyped<float>(a, b, m, op);
    for (size_t i = 0; i < m; ++i) d[start + i] = FromFloat(a[i]);
  }
}

template <typename T>
DLP_VECTOR_CLONES void Divide(T* __restrict dst, size_t n, T by) {
#pragma GCC ivdep
  for (size_t i = 0; i < n; ++i) dst[i] = dst[i] / by;
}

template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void DivideHalf(void* dst, size_t n, int ranks) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) d[i] = FromFloat(ToFloat(d[i]) / static_cast<float>(ranks));
}

// A link's buffer hands out received bytes at any offset: a message of 4-byte
// elements can leave the next message's doubles 4 bytes off their alignment,
// and loading a misaligned double is undefined behaviour. Such a source is
// reduced from aligned copies, a block at a time.
bool AlignedFor(const void* p, dlp_dtype t) {
  return reinterpret_cast<uintptr_t>(p) % DTypeSize(t) == 0;
}

template <typename Fn>
void FromAlignedBlocks(const void* src, size_t count, dlp_dtype t, Fn reduce_block) {
  alignas(16) char block[16 << 10];
  const size_t size = DTypeSize(t);
  const size_t per_block = sizeof(block) / size;
  for (size_t start = 0; start < count; start += per_block) {
    const size_t n = std::min(per_block, count - start);
    std::memcpy(block, static_cast<const char*>(src) + start * size, n * size);
    reduce_block(start, block, n);
  }
}

}  // namespace

void ReduceInto(void* dst, const void* src, size_t count, dlp_dtype t, dlp_op op) {
  if (!AlignedFor(src, t)) {
    return FromAlignedBlocks(src, count, t, [&](size_t start, const void* block, size_t n) {
      ReduceInto(static_cast<char*>(dst) + start * DTypeSize(t), block, n, t, op);
    });
  }
  switch (t) {
    case DLP_FLOAT32: return ReduceTyped<float>(dst, src, count, op);
    case DLP_FLOAT64: return ReduceTyped<double>(dst, src, count, op);
    case DLP_INT32: return ReduceTyped<int32_t>(dst, src, count, op);
    case DLP_INT64: return ReduceTyped<int64_t>(dst, src, count, op);
    case DLP_FLOAT16: return ReduceHalf<HalfToFloat, FloatToHalf>(dst, src, count, op);
    case DLP_BFLOAT16: return ReduceHalf<BFloat16ToFloat, FloatToBFloat16>(dst, src, count, op);
  }
}

void ReduceFrom(void* dst, const void* a, const void* b, size_t count, dlp_dtype t, dlp_op op) {
  if (!AlignedFor(b, t)) {
    return FromAlignedBlocks(b, count, t, [&](size_t start, const void* block, size_t n) {
      const size_t offset = start * DTypeSize(t);
      ReduceFrom(static_cast<char*>(dst) + offset, static_cast<const char*>(a) + offset, block, n,
                 t, op);
    });
  }
  if (dst != a) {
    // Sums of 32/64-bit types in one pass; the rest copy first.
    if (op == DLP_SUM || op == DLP_AVG) {
      switch (t) {
        case DLP_FLOAT32: return Sum3(static_cast<float*>(dst), static_cast<const float*>(a), static_cast<const float*>(b), count);
        case DLP_FLOAT64: return Sum3(static_cast<double*>(dst), static_cast<const double*>(a), static_cast<const double*>(b), count);
        case DLP_INT32: return Sum3(static_cast<int32_t*>(dst), static_cast<const int32_t*>(a), static_cast<const int32_t*>(b), count);
        case DLP_INT64: return Sum3(static_cast<int64_t*>(dst), static_cast<const int64_t*>(a), static_cast<const int64_t*>(b), count);
        default: break;
      }
    }
    std::memcpy(dst, a, count * DTypeSize(t));
  }
  ReduceInto(dst, b, count, t, op);
}

void ReduceAll(char* dst, const std::vector<const char*>& sources, size_t count, dlp_dtype t,
               dlp_op op) {
  const int n = static_cast<int>(sources.size());
  ReduceFrom(dst, sources[0], sources[1], count, t, op);
  for (int j = 2; j < n; ++j) ReduceInto(dst, sources[static_cast<size_t>(j)], count, t, op);
  if (op == DLP_AVG) FinishAverage(dst, count, t, n);
}

namespace {

void CopyCached(char* dst, const char* src, size_t n) { std::memcpy(dst, src, n); }

}  // namespace

void CopyStreaming(char* dst, const char* src, size_t n) {
#if defined(__x86_64__)
  // Align the destination to 16 bytes, stream the middle, copy the tail.
  size_t head = std::min(n, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, n - i);
  _mm_sfence();  // the streamed stores are ordered before what follows
#else
  std::memcpy(dst, src, n);
#endif
}

namespace {

// The smallest `bytes` that ResultCopy streams.
size_t StreamResultsFromBytes(int ranks) {
  static const size_t llc = [] {
    const long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return bytes > 0 ? static_cast<size_t>(bytes) : size_t{32} << 20;
  }();
  return std::max<size_t>(1, llc / 4 * 3 / (2 * static_cast<size_t>(std::max(ranks, 1))));
}

}  // namespace

CopyFn ResultCopy(size_t bytes, int ranks) {
  return bytes >= StreamResultsFromBytes(ranks) ? CopyStreaming : CopyCached;
}

void FinishAverage(void* dst, size_t count, dlp_dtype t, int ranks) {
  switch (t) {
    case DLP_FLOAT32: return Divide(static_cast<float*>(dst), count, static_cast<float>(ranks));
    case DLP_FLOAT64: return Divide(static_cast<double*>(dst), count, static_cast<double>(ranks));
    case DLP_INT32: return Divide(static_cast<int32_t*>(dst), count, static_cast<int32_t>(ranks));
    case DLP_INT64: return Divide(static_cast<int64_t*>(dst), count, static_cast<int64_t>(ranks));
    case DLP_FLOAT16: return DivideHalf<HalfToFloat, FloatToHalf>(dst, count, ranks);
    case DLP_BFLOAT16: return DivideHalf<BFloat16ToFloat, FloatToBFloat16>(dst, count, ranks);
  }
}

}  // namespace dlp::runtime
