// The machine's CUDA devices as the GPU transports see them (cuda_path.h).
#include <cuda_runtime.h>

#include <string>

#include "comm/transports/cuda_check.h"
#include "comm/transports/cuda_path.h"

namespace dlp::runtime {

int CudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

absl::StatusOr<std::string> CurrentCudaDeviceUuid() {
  int device = 0;
  DLP_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  DLP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.uuid.bytes, sizeof(prop.uuid.bytes));
}

}  // namespace dlp::runtime
