// A register-tiled GEMM that the compiler vectorises (no intrinsics).
//
// op(A) is read in place, a scalar at a time (packing it cost as much as the
// multiplication at a rank's batch of 16); B is read in place when its rows
// are whole tiles wide, else copied into a zero-padded k x n' panel. The k
// dimension is split into blocks whose slice of B (kBlock x kCols floats) is
// reused by every group of kRows rows of A; each tile keeps a kRows x kCols
// accumulator in registers.
//
// A transposed B (the input gradient, dy W^T) is not packed: each entry of C is
// a dot product of a row of A with a row of B, both contiguous, so tiles of
// kDotRows x kDotCols dot products run along k in vectors of kLanes. With a
// rank's batch of 16, packing the weights cost as much as multiplying them.
//
// A sum of transposed products (every rank's share of a weight gradient) runs
// all of its products for one tile of C before the next, so C is written once.
//
// On x86-64 the function is cloned for AVX-512 and AVX2+FMA and picked at load
// time, so the binary stays portable.
#include "nn/cpu_gemm.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "nn/cpu_clones.h"

namespace dlp::fmnist {
namespace {

constexpr int kRows = 8;
constexpr int kCols = 32;
constexpr int kBlock = 256;
constexpr int kDotRows = 4;
constexpr int kDotCols = 2;
constexpr int kLanes = 8;
constexpr int kWide = 16;

// The kernels must be inlined into each clone to be compiled for its ISA: left
// out of line, GCC compiled them once, for the baseline (SSE2, no FMA).
#define FMNIST_KERNEL inline __attribute__((always_inline))

// GCC's generic vectors: one register on the widest clone, split on the others.
// The loop-vectoriser kept the accumulators in memory (or scalar, for the dot
// products), which cost up to 4x.
typedef float Wide __attribute__((vector_size(kWide * sizeof(float))));
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

// Unaligned loads and stores (memcpy compiles to one move). Vectors pass by
// pointer: by value, their ABI would differ between the clones.
template <typename V>
FMNIST_KERNEL void Load(V* v, const float* p) {
  std::memcpy(v, p, sizeof(V));
}
template <typename V>
FMNIST_KERNEL void Store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// op(A) read in place: element (i, p) at a[p * ld + i] when transposed, else
// at a[i * ld + p] (so A or A^T with any row stride).
struct AView {
  const float* a;
  size_t ld;
  bool trans;
  const float* At(int i, int p) const {
    const size_t ii = static_cast<size_t>(i), pp = static_cast<size_t>(p);
    return a + (trans ? pp * ld + ii : ii * ld + pp);
  }
};

// c[rows x cols] (+)= a (rows x k) * pb (k x kCols slice of B, row stride
// ldb): added to c, or stored without reading it. Each product is a scalar of
// A times a vector of B, so A needs no packing; a missing row is computed from
// row 0 and dropped. The layout of A is a template argument so that its
// addressing compiles to fixed offsets.
template <bool kTrans>
FMNIST_KERNEL void Tile(int k, const float* __restrict a, size_t lda, const float* __restrict pb,
                        int ldb, float* __restrict c, int ldc, int rows, int cols, bool add) {
  constexpr int kVecs = kCols / kWide;
  size_t row_at[kRows];
  for (int r = 0; r < kRows; ++r)
    row_at[r] = static_cast<size_t>(r < rows ? r : 0) * (kTrans ? 1 : lda);
  const size_t step = kTrans ? lda : 1;
  Wide acc[kRows][kVecs] = {};
  for (int p = 0; p < k; ++p) {
    const float* bp = pb + static_cast<size_t>(p) * ldb;
    Wide bv[kVecs];
    for (int v = 0; v < kVecs; ++v) Load(&bv[v], bp + v * kWide);
    for (int r = 0; r < kRows; ++r) {
      const float av = a[row_at[r] + static_cast<size_t>(p) * step];
      for (int v = 0; v < kVecs; ++v) acc[r][v] += av * bv[v];
    }
  }
  if (rows == kRows && cols == kCols) {
    for (int r = 0; r < kRows; ++r) {
      float* cr = c + static_cast<size_t>(r) * ldc;
      for (int v = 0; v < kVecs; ++v) {
        Wide sum = acc[r][v];
        if (add) {
          Wide old;
          Load(&old, cr + v * kWide);
          sum += old;
        }
        Store(cr + v * kWide, sum);
      }
    }
    return;
  }
  // Through memory only here: indexing `acc` by element would keep it there
  // (zeroed by a rep stos on every call) instead of in registers.
  float edge[kRows][kCols];
  for (int r = 0; r < kRows; ++r) {
    for (int v = 0; v < kVecs; ++v) Store(&edge[r][v * kWide], acc[r][v]);
  }
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j) {
      float& out = c[static_cast<size_t>(r) * ldc + j];
      out = (add ? out : 0.0f) + edge[r][j];
    }
  }
}

// c[rows x cols] (+)= a[rows x k] b[cols x k]^T. Edge tiles compute the missing
// rows and columns from row 0 and drop them, so the loop has no branches. The
// products run along k in vectors of kLanes.
FMNIST_KERNEL void DotTile(int k, const float* __restrict a, int lda, const float* __restrict b,
                           int ldb, float* __restrict c, int ldc, int rows, int cols, bool add) {
  const float* ar[kDotRows];
  const float* bc[kDotCols];
  for (int r = 0; r < kDotRows; ++r) ar[r] = a + static_cast<size_t>(r < rows ? r : 0) * lda;
  for (int j = 0; j < kDotCols; ++j) bc[j] = b + static_cast<size_t>(j < cols ? j : 0) * ldb;
  Lanes acc[kDotRows][kDotCols] = {};
  const int whole = k / kLanes * kLanes;
  for (int p = 0; p < whole; p += kLanes) {
    Lanes bv[kDotCols];
    for (int j = 0; j < kDotCols; ++j) Load(&bv[j], bc[j] + p);
    for (int r = 0; r < kDotRows; ++r) {
      Lanes av;
      Load(&av, ar[r] + p);
      for (int j = 0; j < kDotCols; ++j) acc[r][j] += av * bv[j];
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j) {
      float sum = 0.0f;
      for (int l = 0; l < kLanes; ++l) sum += acc[r][j][l];
      for (int p = whole; p < k; ++p) sum += ar[r][p] * bc[j][p];
      float& out = c[static_cast<size_t>(r) * ldc + j];
      out = (add ? out : 0.0f) + sum;
    }
  }
}

// C (+)= op(A) B^T through DotTile; op(A) is transposed into rows first if need be.
FMNIST_CLONES
void DotGemm(bool trans_a, int m, int n, int k, const float* a, const float* b, float* c,
             bool add) {
  thread_local std::vector<float> rows_a;
  if (trans_a) {
    rows_a.resize(static_cast<size_t>(m) * k);
    for (int p = 0; p < k; ++p) {
      for (int i = 0; i < m; ++i) {
        rows_a[static_cast<size_t>(i) * k + p] = a[static_cast<size_t>(p) * m + i];
      }
    }
    a = rows_a.data();
  }
  for (int j0 = 0; j0 < n; j0 += kDotCols) {
    const int cols = std::min(kDotCols, n - j0);
    for (int i0 = 0; i0 < m; i0 += kDotRows) {
      DotTile(k, a + static_cast<size_t>(i0) * k, k, b + static_cast<size_t>(j0) * k, k,
              c + static_cast<size_t>(i0) * n + j0, n, std::min(kDotRows, m - i0), cols, add);
    }
  }
}

// The panel op(B) (k x n) is read from: B itself when its rows are whole tiles
// wide, else a zero-padded copy PanelWidth(n) wide in `packed` (resized).
int PanelWidth(bool trans_b, int n) {
  return trans_b || n % kCols != 0 ? (n + kCols - 1) / kCols * kCols : n;
}
const float* PanelB(bool trans_b, int n, int k, const float* b, std::vector<float>& packed,
                    size_t at = 0) {
  const int width = PanelWidth(trans_b, n);
  if (width == n && !trans_b) return b;
  packed.resize(std::max(packed.size(), at + static_cast<size_t>(k) * width));
  float* panel = packed.data() + at;
  for (int p = 0; p < k; ++p) {
    float* row = panel + static_cast<size_t>(p) * width;
    for (int j = 0; j < n; ++j) {
      row[j] = trans_b ? b[static_cast<size_t>(j) * k + p] : b[static_cast<size_t>(p) * n + j];
    }
    std::fill(row + n, row + width, 0.0f);
  }
  return panel;
}

// The tile of C at rows [i0, i0 + kRows) (+)= those rows of op(A), over
// [p0, p0 + kc) of k, times pb (the panel's matching slice): Tile for A's layout.
FMNIST_KERNEL void TileOf(AView a, int i0, int p0, int kc, const float* pb, int width, float* tile,
                          int ldc, int rows, int cols, bool add) {
  if (a.trans) {
    Tile<true>(kc, a.At(i0, p0), a.ld, pb, width, tile, ldc, rows, cols, add);
  } else {
    Tile<false>(kc, a.At(i0, p0), a.ld, pb, width, tile, ldc, rows, cols, add);
  }
}

// The tile of C at rows i0 and column j0 (+)= op(A) times a panel, all of k.
FMNIST_KERNEL void TileOverK(int m, int n, int k, AView a, const float* panel, int width, int i0,
                             int j0, float* c, bool add) {
  const int rows = std::min(kRows, m - i0);
  const int cols = std::min(kCols, n - j0);
  for (int p0 = 0; p0 < k; p0 += kBlock) {
    TileOf(a, i0, p0, std::min(kBlock, k - p0), panel + static_cast<size_t>(p0) * width + j0, width,
           c + static_cast<size_t>(i0) * n + j0, n, rows, cols, add || p0 > 0);
  }
}

}  // namespace

FMNIST_CLONES
void CpuGemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, const float* b,
             float beta, float* c) {
  const size_t mn = static_cast<size_t>(m) * n;
  // With beta 0 the first pass over k stores its products: C is never read
  // (as in BLAS), and needs no zeroing first.
  const bool store_first = beta == 0.0f && k > 0;
  if (beta == 0.0f && !store_first) {
    std::fill(c, c + mn, 0.0f);
  } else if (beta != 0.0f && beta != 1.0f) {
    for (size_t i = 0; i < mn; ++i) c[i] *= beta;
  }
  if (m == 0 || n == 0 || k == 0) return;
  if (trans_b && k >= 2 * kLanes) return DotGemm(trans_a, m, n, k, a, b, c, !store_first);

  thread_local std::vector<float> packed_b;  // grown, never shrunk: the layers take turns
  const AView op_a{a, static_cast<size_t>(trans_a ? m : k), trans_a};
  const int width = PanelWidth(trans_b, n);
  const float* panel = PanelB(trans_b, n, k, b, packed_b);
  // Each block of k's slice of the panel serves every row group in turn.
  for (int p0 = 0; p0 < k; p0 += kBlock) {
    const int kc = std::min(kBlock, k - p0);
    for (int j0 = 0; j0 < n; j0 += kCols) {
      const int cols = std::min(kCols, n - j0);
      const float* pb = panel + static_cast<size_t>(p0) * width + j0;
      for (int i0 = 0; i0 < m; i0 += kRows) {
        TileOf(op_a, i0, p0, kc, pb, width, c + static_cast<size_t>(i0) * n + j0, n,
               std::min(kRows, m - i0), cols, !(store_first && p0 == 0));
      }
    }
  }
}

FMNIST_CLONES
void CpuGemmSumOfTransposed(int m, int n, const std::vector<TransposedTerm>& terms, float* c) {
  thread_local std::vector<float> packed_b;
  thread_local std::vector<size_t> b_at;
  const int width = PanelWidth(false, n);
  b_at.assign(terms.size() + 1, 0);
  for (size_t s = 0; s < terms.size(); ++s) {
    b_at[s + 1] = b_at[s] + static_cast<size_t>(terms[s].k) * width;
  }
  // Sized before the panels are written: a later resize would move the earlier ones.
  if (width != n) packed_b.resize(std::max(packed_b.size(), b_at.back()));
  thread_local std::vector<const float*> panels;
  panels.assign(terms.size(), nullptr);
  bool any = false;
  for (size_t s = 0; s < terms.size(); ++s) {
    const TransposedTerm& t = terms[s];
    if (t.k == 0) continue;
    any = true;
    panels[s] = PanelB(false, n, t.k, t.b, packed_b, b_at[s]);
  }
  if (!any || m == 0 || n == 0) {
    std::fill(c, c + static_cast<size_t>(m) * n, 0.0f);
    return;
  }
  // Every term's product for one tile of C while that tile stays in L1, the
  // first stored and the others added in order.
  for (int j0 = 0; j0 < n; j0 += kCols) {
    for (int i0 = 0; i0 < m; i0 += kRows) {
      bool add = false;
      for (size_t s = 0; s < terms.size(); ++s) {
        const TransposedTerm& t = terms[s];
        if (t.k == 0) continue;
        TileOverK(m, n, t.k, AView{t.a, static_cast<size_t>(t.lda), true}, panels[s], width, i0, j0,
                  c, add);
        add = true;
      }
    }
  }
}

}  // namespace dlp::fmnist
