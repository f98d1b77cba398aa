// A packed, register-tiled GEMM that the compiler vectorises (no intrinsics).
//
// op(A) is packed into groups of kRows rows stored column by column, op(B)
// into a zero-padded k x n' panel, so the inner kernel reads both contiguously
// whatever the transposes. The k dimension is split into blocks whose slice of
// the B panel (kBlock x kCols floats) stays in L1 while every row group of A
// streams past it; each tile keeps a kRows x kCols accumulator in registers.
// On x86-64 the function is cloned for AVX-512 and AVX2+FMA and picked at load
// time, so the binary stays portable.
#include "cpu_gemm.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dlp::fmnist {
namespace {

constexpr int kRows = 4;
constexpr int kCols = 32;
constexpr int kBlock = 256;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMNIST_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FMNIST_CLONES
#endif

// c[rows x cols] += pa (k x kRows, packed) * pb (k x kCols slice of a panel of width ldb).
inline void Tile(int k, const float* __restrict pa, const float* __restrict pb, int ldb,
                 float* __restrict c, int ldc, int rows, int cols) {
  float acc[kRows][kCols] = {};
  for (int p = 0; p < k; ++p) {
    const float* bp = pb + static_cast<size_t>(p) * ldb;
    for (int r = 0; r < kRows; ++r) {
      const float av = pa[p * kRows + r];
      for (int j = 0; j < kCols; ++j) acc[r][j] += av * bp[j];
    }
  }
  if (rows == kRows && cols == kCols) {
    for (int r = 0; r < kRows; ++r) {
      for (int j = 0; j < kCols; ++j) c[static_cast<size_t>(r) * ldc + j] += acc[r][j];
    }
    return;
  }
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j) c[static_cast<size_t>(r) * ldc + j] += acc[r][j];
  }
}

}  // namespace

FMNIST_CLONES
void CpuGemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, const float* b,
             float beta, float* c) {
  const size_t mn = static_cast<size_t>(m) * n;
  if (beta == 0.0f) {
    std::fill(c, c + mn, 0.0f);
  } else if (beta != 1.0f) {
    for (size_t i = 0; i < mn; ++i) c[i] *= beta;
  }
  if (m == 0 || n == 0 || k == 0) return;

  thread_local std::vector<float> packed_a, packed_b;
  const int groups = (m + kRows - 1) / kRows;
  packed_a.assign(static_cast<size_t>(groups) * kRows * k, 0.0f);
  for (int i = 0; i < m; ++i) {
    float* group = packed_a.data() + static_cast<size_t>(i / kRows) * kRows * k;
    const int r = i % kRows;
    for (int p = 0; p < k; ++p) {
      group[p * kRows + r] = trans_a ? a[static_cast<size_t>(p) * m + i]
                                     : a[static_cast<size_t>(i) * k + p];
    }
  }
  const int width = (n + kCols - 1) / kCols * kCols;
  packed_b.assign(static_cast<size_t>(k) * width, 0.0f);
  if (trans_b) {
    for (int j = 0; j < n; ++j) {
      for (int p = 0; p < k; ++p) {
        packed_b[static_cast<size_t>(p) * width + j] = b[static_cast<size_t>(j) * k + p];
      }
    }
  } else {
    for (int p = 0; p < k; ++p) {
      std::copy(b + static_cast<size_t>(p) * n, b + static_cast<size_t>(p + 1) * n,
                packed_b.data() + static_cast<size_t>(p) * width);
    }
  }

  for (int p0 = 0; p0 < k; p0 += kBlock) {
    const int kc = std::min(kBlock, k - p0);
    for (int j0 = 0; j0 < n; j0 += kCols) {
      const int cols = std::min(kCols, n - j0);
      const float* pb = packed_b.data() + static_cast<size_t>(p0) * width + j0;
      for (int g = 0; g < groups; ++g) {
        const int rows = std::min(kRows, m - g * kRows);
        const float* pa = packed_a.data() + static_cast<size_t>(g) * kRows * k +
                          static_cast<size_t>(p0) * kRows;
        Tile(kc, pa, pb, width, c + static_cast<size_t>(g) * kRows * n + j0, n, rows, cols);
      }
    }
  }
}

}  // namespace dlp::fmnist
