// Picks the Kernels implementation: the one place that knows whether CUDA was built.
#include "dlp_build_config.h"
#include "nn/kernels.h"

#if DLP_HAVE_CUDA
#include "nn/cuda_kernels.h"
#endif

namespace dlp::fmnist {

absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(DeviceKind kind) {
  if (kind == DeviceKind::kCpu) return MakeCpuKernels();
#if DLP_HAVE_CUDA
  absl::StatusOr<std::unique_ptr<Kernels>> cuda = MakeCudaKernels();
  if (cuda.ok() || kind == DeviceKind::kCuda) return cuda;
  return MakeCpuKernels();
#else
  if (kind == DeviceKind::kCuda) {
    return absl::FailedPreconditionError(
        "--device cuda: this fmnist-train was built without CUDA (configure with "
        "-DDLP_WITH_CUDA=ON)");
  }
  return MakeCpuKernels();
#endif
}

}  // namespace dlp::fmnist
