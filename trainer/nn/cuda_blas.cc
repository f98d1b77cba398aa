#include "nn/cuda_blas.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace dlp::fmnist {
namespace {

template <typename F>
absl::Status Resolve(void* library, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(library, symbol));
  if (*out == nullptr) return absl::NotFoundError(absl::StrCat("no ", symbol, " in cuBLAS"));
  return absl::OkStatus();
}

absl::StatusOr<CublasApi> Open() {
  const std::string name = absl::StrCat("libcublas.so.", CUBLAS_VER_MAJOR);
  // Found through the program's RUNPATH, which names the CUDA libraries' folder.
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("cannot load ", name, ": ", dlerror()));
  }
  CublasApi api;
  for (absl::Status s : {Resolve(library, "cublasCreate_v2", &api.create),
                         Resolve(library, "cublasDestroy_v2", &api.destroy),
                         Resolve(library, "cublasSgemm_v2", &api.sgemm),
                         Resolve(library, "cublasSgemv_v2", &api.sgemv)}) {
    if (!s.ok()) return s;
  }
  return api;
}

}  // namespace

absl::StatusOr<const CublasApi*> LoadCublas() {
  static const absl::StatusOr<CublasApi> api = Open();
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace dlp::fmnist
