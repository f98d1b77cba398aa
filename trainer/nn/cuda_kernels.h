// The CUDA implementation of Kernels (cuBLAS for GEMM), built only with CUDA.
#pragma once

#include <memory>

#include "nn/kernels.h"

namespace dlp::fmnist {

// FailedPrecondition when no GPU is usable, with the CUDA runtime's message.
absl::StatusOr<std::unique_ptr<Kernels>> MakeCudaKernels();

}  // namespace dlp::fmnist
