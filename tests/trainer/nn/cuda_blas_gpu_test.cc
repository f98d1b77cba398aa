// cuBLAS opened at run time: the library the headers name loads and resolves
// on any machine with the CUDA libraries; a GEMM through it runs where a GPU is.
#include "nn/cuda_blas.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "support/cuda_device.h"

namespace dlp::fmnist {
namespace {

using testing::HasCudaDevice;

TEST(CudaBlas, OpensTheLibraryAndResolvesEveryFunction) {
  auto api = LoadCublas();
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_NE((*api)->create, nullptr);
  EXPECT_NE((*api)->destroy, nullptr);
  EXPECT_NE((*api)->sgemm, nullptr);
  EXPECT_NE((*api)->sgemv, nullptr);
  // Once: the same table every time.
  EXPECT_EQ(*LoadCublas(), *api);
}

TEST(CudaBlas, MultipliesThroughTheOpenedLibrary) {
  if (!HasCudaDevice()) GTEST_SKIP() << "no CUDA device";
  auto api = LoadCublas();
  ASSERT_TRUE(api.ok()) << api.status();
  cublasHandle_t handle = nullptr;
  ASSERT_EQ((*api)->create(&handle), CUBLAS_STATUS_SUCCESS);
  // Column-major 2x2: C = A B with A = [1 3; 2 4], B = identity.
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
  float c[4] = {};
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  ASSERT_EQ(cudaMalloc(&da, sizeof a), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&db, sizeof b), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dc, sizeof c), cudaSuccess);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  const float one = 1, zero = 0;
  EXPECT_EQ((*api)->sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, da, 2, db, 2, &zero,
                          dc, 2),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c[i], a[i]) << i;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  (*api)->destroy(handle);
}

}  // namespace
}  // namespace dlp::fmnist
