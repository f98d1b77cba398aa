// One checking macro per library (nccl-tests' CUDACHECK/NCCLCHECK), keeping
// the library's message but returning an absl::Status instead of exiting.
#pragma once

#include <cuda_runtime.h>

#include "absl/strings/str_cat.h"

#define DLP_CUDA_CHECK(call)                                                              \
  do {                                                                                    \
    cudaError_t dlp_cuda_err_ = (call);                                                   \
    if (dlp_cuda_err_ != cudaSuccess) {                                                   \
      return ::absl::InternalError(                                                       \
          ::absl::StrCat(#call, ": ", cudaGetErrorString(dlp_cuda_err_)));                \
    }                                                                                     \
  } while (0)
