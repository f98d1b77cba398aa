// The CUDA implementation of Kernels: cuBLAS for the GEMMs and row sums, the
// kernels of cuda_launch.cu for the rest, all on the default stream. The first
// CUDA or cuBLAS error is remembered and returned by Check().
#include <cuda_runtime.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "nn/cuda_blas.h"
#include "nn/cuda_kernels.h"
#include "nn/cuda_launch.h"
#include "dlp/status.h"

namespace dlp::fmnist {
namespace {

class CudaKernels final : public Kernels {
 public:
  CudaKernels(const CublasApi* blas, cublasHandle_t handle) : blas_(blas), handle_(handle) {}
  ~CudaKernels() override {
    if (ones_ != nullptr) cudaFree(ones_);
    blas_->destroy(handle_);
  }

  std::string name() const override { return "cuda"; }

  absl::Status Check() override {
    Record(cudaGetLastError(), "kernel launch");
    absl::Status status = status_;
    status_ = absl::OkStatus();
    return status;
  }

  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    if (Record(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc")) {
      Record(cudaMemset(p, 0, bytes), "cudaMemset");
    }
    return p;
  }
  void Release(void* p) override { cudaFree(p); }
  void CopyToDevice(void* dst, const void* src, size_t bytes) override {
    Record(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  void CopyToHost(void* dst, const void* src, size_t bytes) override {
    Record(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  }
  void Zero(float* x, size_t n) override {
    Record(cudaMemsetAsync(x, 0, n * sizeof(float)), "cudaMemsetAsync");
  }

  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  void Gemm(bool ta, bool tb, int m, int n, int k, const float* a, const float* b, float beta,
            float* c) override {
    const float one = 1.0f;
    RecordBlas(blas_->sgemm(handle_, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                           n, m, k, &one, b, tb ? k : n, a, ta ? m : k, &beta, c, n),
               "cublasSgemm");
  }
  void AddRowVector(float* y, const float* v, int rows, int cols) override {
    cuda::AddRowVector(y, v, rows, cols);
  }
  // out = x^T ones, as a cuBLAS matrix-vector product.
  void SumRows(const float* x, int rows, int cols, float* out) override {
    if (rows == 0) return Zero(out, static_cast<size_t>(cols));
    if (rows > ones_count_) {
      if (ones_ != nullptr) cudaFree(ones_);
      ones_ = static_cast<float*>(Allocate(rows * sizeof(float)));
      ones_count_ = rows;
      const std::vector<float> host(rows, 1.0f);
      CopyToDevice(ones_, host.data(), rows * sizeof(float));
    }
    const float one = 1.0f, zero = 0.0f;
    RecordBlas(
        blas_->sgemv(handle_, CUBLAS_OP_N, cols, rows, &one, x, cols, ones_, 1, &zero, out, 1),
        "cublasSgemv");
  }
  void Relu(float* x, size_t n) override {
    cuda::Relu(x, n);
  }
  void ReluBackward(const float* y, float* dy, size_t n) override {
    cuda::ReluBackward(y, dy, n);
  }
  LossSum SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int rows, int cols,
                              float* dlogits) override {
    LossSum sum;
    if (rows == 0) return sum;
    if (rows > row_capacity_) {
      row_loss_ = DeviceBuffer<float>(this, rows);
      row_correct_ = DeviceBuffer<int>(this, rows);
      row_capacity_ = rows;
    }
    cuda::SoftmaxCrossEntropy(logits, labels, rows, cols, dlogits, row_loss_.get(),
                              row_correct_.get());
    std::vector<float> loss(rows);
    std::vector<int> correct(rows);
    CopyToHost(loss.data(), row_loss_.get(), rows * sizeof(float));
    CopyToHost(correct.data(), row_correct_.get(), rows * sizeof(int));
    for (int r = 0; r < rows; ++r) sum.loss += loss[r], sum.correct += correct[r];
    return sum;
  }
  void MomentumStep(float* p, float* v, const float* g, size_t n, float lr, float mu,
                    float scale, float weight_decay) override {
    cuda::MomentumStep(p, v, g, n, lr, mu, scale, weight_decay);
  }
  void Im2Col(const float* x, int batch, int h, int w, int c, int k, float* cols) override {
    cuda::Im2Col(x, batch, h, w, c, k, cols);
  }
  void Col2Im(const float* dcols, int batch, int h, int w, int c, int k, float* dx) override {
    cuda::Col2Im(dcols, batch, h, w, c, k, dx);
  }
  void MaxPool(const float* x, int batch, int h, int w, int c, float* y,
               int32_t* argmax) override {
    cuda::MaxPool(x, batch, h, w, c, y, argmax);
  }
  void MaxPoolBackward(const float* dy, const int32_t* argmax, int batch, int h, int w, int c,
                       float* dx) override {
    const size_t in = static_cast<size_t>(batch) * h * w * c;
    Zero(dx, in);
    cuda::MaxPoolBackward(dy, argmax, in / 4, dx);
  }

 private:
  bool Record(cudaError_t rc, const char* what) {
    if (rc == cudaSuccess) return true;
    if (status_.ok()) {
      status_ = absl::InternalError(absl::StrCat(what, ": ", cudaGetErrorString(rc)));
    }
    return false;
  }
  void RecordBlas(cublasStatus_t rc, const char* what) {
    if (rc != CUBLAS_STATUS_SUCCESS && status_.ok()) {
      status_ = absl::InternalError(absl::StrCat(what, ": cuBLAS status ", static_cast<int>(rc)));
    }
  }

  const CublasApi* blas_;
  cublasHandle_t handle_;
  absl::Status status_;
  float* ones_ = nullptr;
  int ones_count_ = 0;
  DeviceBuffer<float> row_loss_;
  DeviceBuffer<int> row_correct_;
  int row_capacity_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Kernels>> MakeCudaKernels() {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess || devices == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--device cuda: no usable GPU (",
        rc != cudaSuccess ? cudaGetErrorString(rc) : "no devices", ")"));
  }
  DLP_ASSIGN_OR_RETURN(const CublasApi* blas, LoadCublas());
  cublasHandle_t handle = nullptr;
  const cublasStatus_t created = blas->create(&handle);
  if (created != CUBLAS_STATUS_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("cublasCreate failed with status ", static_cast<int>(created)));
  }
  return std::unique_ptr<Kernels>(new CudaKernels(blas, handle));
}

}  // namespace dlp::fmnist
