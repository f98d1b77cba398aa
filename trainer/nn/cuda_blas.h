// cuBLAS, opened the first time a run computes on a GPU. Linked in, its
// initialisers would run at every start of fmnist-train, CPU runs included:
// 0.45 s of a 2-core machine's time per process (bench/history/RESULTS-2026.md, "Trainer
// start"), paid by every rank of every job.
#pragma once

#include <cublas_v2.h>

#include "absl/status/statusor.h"

namespace dlp::fmnist {

// The cuBLAS entry points the CUDA kernels call.
struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasSgemv_v2) sgemv;
};

// Opens libcublas.so.<major of the headers built against> once (it stays
// open) and resolves CublasApi. Errors name the library and the symbol.
absl::StatusOr<const CublasApi*> LoadCublas();

}  // namespace dlp::fmnist
