// The numeric kernels the models are written against, one implementation per
// device (CPU always; CUDA with cuBLAS when built with CUDA). Every pointer
// passed to a kernel is memory of that device; matrices are row-major and
// activations are NHWC, so a convolution is an im2col followed by a GEMM.
//
// Kernels do not return errors one by one: a device failure is remembered and
// reported by the next Check(), which the trainer calls once per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "dlp/status.h"

namespace dlp::fmnist {

struct LossSum {
  double loss = 0;   // sum over the rows of -log softmax(logits)[label]
  int correct = 0;   // rows whose arg-max is the label
};

class Kernels {
 public:
  virtual ~Kernels() = default;
  virtual std::string name() const = 0;
  // True when device memory is host memory (the CPU): the trainer then lets the
  // network write its gradients straight into the buffer it all-reduces.
  virtual bool host_memory() const { return false; }
  // The first device error since the last call, or OK.
  virtual absl::Status Check() = 0;

  // Zeroed device memory, released with Release().
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Release(void* p) = 0;
  virtual void CopyToDevice(void* dst, const void* host_src, size_t bytes) = 0;
  virtual void CopyToHost(void* host_dst, const void* src, size_t bytes) = 0;
  virtual void Zero(float* x, size_t n) = 0;

  // C[m x n] = op(A) op(B) + beta C, with op(A) m x k and op(B) k x n. With
  // beta 0, C is only written (as in BLAS).
  virtual void Gemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a,
                    const float* b, float beta, float* c) = 0;
  // y[r][c] += v[c].
  virtual void AddRowVector(float* y, const float* v, int rows, int cols) = 0;
  // out[c] = sum over r of x[r][c].
  virtual void SumRows(const float* x, int rows, int cols, float* out) = 0;
  virtual void Relu(float* x, size_t n) = 0;
  // dy *= (y > 0), where y is the ReLU's output.
  virtual void ReluBackward(const float* y, float* dy, size_t n) = 0;
  // Per-row softmax cross-entropy; when dlogits is non-null it receives
  // softmax - onehot (the gradient of the summed, not averaged, loss).
  virtual LossSum SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int rows,
                                      int cols, float* dlogits) = 0;
  // v = momentum v + scale g; p -= lr v.
  virtual void MomentumStep(float* params, float* velocity, const float* grads, size_t n,
                            float lr, float momentum, float grad_scale, float weight_decay) = 0;

  // Same-size k x k convolution windows (stride 1, zero padding k/2) of an
  // NHWC batch: cols[(b,y,x)][(ky,kx,c)].
  virtual void Im2Col(const float* x, int batch, int h, int w, int c, int k, float* cols) = 0;
  // The adjoint of Im2Col: dx = sum of the window gradients (dx is overwritten).
  virtual void Col2Im(const float* dcols, int batch, int h, int w, int c, int k, float* dx) = 0;
  // 2x2 max pooling with stride 2 (h and w even); argmax records the winner.
  virtual void MaxPool(const float* x, int batch, int h, int w, int c, float* y,
                       int32_t* argmax) = 0;
  // dx (overwritten, batch x h x w x c) from dy through the recorded winners.
  virtual void MaxPoolBackward(const float* dy, const int32_t* argmax, int batch, int h, int w,
                               int c, float* dx) = 0;
};

enum class DeviceKind { kCpu, kCuda, kAuto };

// kAuto picks CUDA when built with it and a GPU is present, else the CPU.
// kCuda fails with FailedPrecondition when unavailable, naming why.
absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(DeviceKind kind);

std::unique_ptr<Kernels> MakeCpuKernels();

// A device buffer of floats (or int32) released with its owner.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Kernels* k, size_t n)
      : kernels_(k), size_(n), data_(static_cast<T*>(k->Allocate(n * sizeof(T)))) {}
  ~DeviceBuffer() {
    if (data_ != nullptr) kernels_->Release(data_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(kernels_, o.kernels_);
    std::swap(size_, o.size_);
    std::swap(data_, o.data_);
    return *this;
  }
  T* get() const { return data_; }
  size_t size() const { return size_; }

 private:
  Kernels* kernels_ = nullptr;
  size_t size_ = 0;
  T* data_ = nullptr;
};

}  // namespace dlp::fmnist
