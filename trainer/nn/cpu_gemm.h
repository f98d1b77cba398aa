// Single-threaded CPU GEMM, row-major: C[m x n] = op(A) op(B) + beta C.
#pragma once

#include <vector>

namespace dlp::fmnist {

void CpuGemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, const float* b,
             float beta, float* c);

// One product of a sum: A^T B, with A k x m at a row stride of lda (so that A
// may be columns of a wider matrix) and B k x n.
struct TransposedTerm {
  const float* a;
  int lda;
  const float* b;
  int k;
};

// C[m x n] = the sum of the terms' products in their order, each product
// accumulated on its own and then added: the same floats as CpuGemm computing
// each product (trans_a, k up to 256) and adding the results one by one, but
// with no product ever in memory. Terms with k 0 add nothing.
void CpuGemmSumOfTransposed(int m, int n, const std::vector<TransposedTerm>& terms, float* c);

}  // namespace dlp::fmnist
