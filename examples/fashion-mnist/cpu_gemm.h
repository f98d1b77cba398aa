// Single-threaded CPU GEMM, row-major: C[m x n] = op(A) op(B) + beta C.
#pragma once

namespace dlp::fmnist {

void CpuGemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, const float* b,
             float beta, float* c);

}  // namespace dlp::fmnist
