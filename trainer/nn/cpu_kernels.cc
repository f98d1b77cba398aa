// The CPU implementation of Kernels: plain loops the compiler vectorises,
// single-threaded (data parallelism comes from ranks, which are processes).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "nn/cpu_clones.h"
#include "nn/cpu_gemm.h"
#include "nn/kernels.h"

namespace dlp::fmnist {
namespace {

// The element-wise loops, one clone per vector width (cpu_clones.h).
FMNIST_CLONES void AddRowVectorLoop(float* y, const float* v, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    float* row = y + static_cast<size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) row[c] += v[c];
  }
}

FMNIST_CLONES void SumRowsLoop(const float* x, int rows, int cols, float* out) {
  std::fill(out, out + cols, 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) out[c] += row[c];
  }
}

FMNIST_CLONES void ReluLoop(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

FMNIST_CLONES void ReluBackwardLoop(const float* y, float* dy, size_t n) {
  for (size_t i = 0; i < n; ++i) dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

FMNIST_CLONES void MomentumLoop(float* params, float* velocity, const float* grads, size_t n,
                                float lr, float momentum, float grad_scale, float weight_decay) {
  for (size_t i = 0; i < n; ++i) {
    velocity[i] = momentum * velocity[i] + grad_scale * grads[i] + weight_decay * params[i];
    params[i] -= lr * velocity[i];
  }
}

class CpuKernels final : public Kernels {
 public:
  std::string name() const override { return "cpu"; }
  bool host_memory() const override { return true; }
  absl::Status Check() override { return absl::OkStatus(); }

  void* Allocate(size_t bytes) override {
    // 64-byte alignment suits every vector width.
    void* p = std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
    if (p == nullptr) std::abort();  // out of memory is a bug-level failure here
    std::memset(p, 0, bytes);
    return p;
  }
  void Release(void* p) override { std::free(p); }
  void CopyToDevice(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void CopyToHost(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void Zero(float* x, size_t n) override { std::fill(x, x + n, 0.0f); }

  void Gemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, const float* b,
            float beta, float* c) override {
    CpuGemm(trans_a, trans_b, m, n, k, a, b, beta, c);
  }

  void AddRowVector(float* y, const float* v, int rows, int cols) override {
    AddRowVectorLoop(y, v, rows, cols);
  }
  void SumRows(const float* x, int rows, int cols, float* out) override {
    SumRowsLoop(x, rows, cols, out);
  }
  void Relu(float* x, size_t n) override { ReluLoop(x, n); }
  void ReluBackward(const float* y, float* dy, size_t n) override { ReluBackwardLoop(y, dy, n); }

  LossSum SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int rows, int cols,
                              float* dlogits) override {
    LossSum sum;
    for (int r = 0; r < rows; ++r) {
      const float* z = logits + static_cast<size_t>(r) * cols;
      int best = 0;
      for (int c = 1; c < cols; ++c) best = z[c] > z[best] ? c : best;
      const float zmax = z[best];
      double total = 0;
      for (int c = 0; c < cols; ++c) total += std::exp(static_cast<double>(z[c] - zmax));
      const int label = labels[r];
      sum.loss += std::log(total) - (z[label] - zmax);
      sum.correct += best == label ? 1 : 0;
      if (dlogits != nullptr) {
        float* d = dlogits + static_cast<size_t>(r) * cols;
        for (int c = 0; c < cols; ++c) {
          d[c] = static_cast<float>(std::exp(static_cast<double>(z[c] - zmax)) / total);
        }
        d[label] -= 1.0f;
      }
    }
    return sum;
  }

  void MomentumStep(float* params, float* velocity, const float* grads, size_t n, float lr,
                    float momentum, float grad_scale, float weight_decay) override {
    MomentumLoop(params, velocity, grads, n, lr, momentum, grad_scale, weight_decay);
  }

  void Im2Col(const float* x, int batch, int h, int w, int c, int k, float* cols) override {
    const int pad = k / 2;
    const size_t row = static_cast<size_t>(k) * k * c;
    for (int b = 0; b < batch; ++b) {
      for (int y = 0; y < h; ++y) {
        for (int xx = 0; xx < w; ++xx) {
          float* out = cols + ((static_cast<size_t>(b) * h + y) * w + xx) * row;
          for (int ky = 0; ky < k; ++ky) {
            const int iy = y + ky - pad;
            for (int kx = 0; kx < k; ++kx, out += c) {
              const int ix = xx + kx - pad;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
                std::fill(out, out + c, 0.0f);
              } else {
                const float* in = x + ((static_cast<size_t>(b) * h + iy) * w + ix) * c;
                std::copy(in, in + c, out);
              }
            }
          }
        }
      }
    }
  }

  void Col2Im(const float* dcols, int batch, int h, int w, int c, int k, float* dx) override {
    const int pad = k / 2;
    const size_t row = static_cast<size_t>(k) * k * c;
    std::fill(dx, dx + static_cast<size_t>(batch) * h * w * c, 0.0f);
    for (int b = 0; b < batch; ++b) {
      for (int y = 0; y < h; ++y) {
        for (int xx = 0; xx < w; ++xx) {
          const float* in = dcols + ((static_cast<size_t>(b) * h + y) * w + xx) * row;
          for (int ky = 0; ky < k; ++ky) {
            const int iy = y + ky - pad;
            for (int kx = 0; kx < k; ++kx, in += c) {
              const int ix = xx + kx - pad;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              float* out = dx + ((static_cast<size_t>(b) * h + iy) * w + ix) * c;
              for (int ci = 0; ci < c; ++ci) out[ci] += in[ci];
            }
          }
        }
      }
    }
  }

  void MaxPool(const float* x, int batch, int h, int w, int c, float* y,
               int32_t* argmax) override {
    const int oh = h / 2, ow = w / 2;
    for (int b = 0; b < batch; ++b) {
      for (int oy = 0; oy < oh; ++oy) {
        for (int ox = 0; ox < ow; ++ox) {
          const size_t o = ((static_cast<size_t>(b) * oh + oy) * ow + ox) * c;
          for (int ci = 0; ci < c; ++ci) {
            float best = -std::numeric_limits<float>::infinity();
            int32_t where = 0;
            for (int dy = 0; dy < 2; ++dy) {
              for (int dx = 0; dx < 2; ++dx) {
                const int32_t i = static_cast<int32_t>(
                    ((static_cast<size_t>(b) * h + 2 * oy + dy) * w + 2 * ox + dx) * c + ci);
                if (x[i] > best) best = x[i], where = i;
              }
            }
            y[o + ci] = best;
            argmax[o + ci] = where;
          }
        }
      }
    }
  }

  void MaxPoolBackward(const float* dy, const int32_t* argmax, int batch, int h, int w, int c,
                       float* dx) override {
    const size_t in = static_cast<size_t>(batch) * h * w * c;
    std::fill(dx, dx + in, 0.0f);
    for (size_t o = 0; o < in / 4; ++o) dx[argmax[o]] += dy[o];
  }
};

}  // namespace

std::unique_ptr<Kernels> MakeCpuKernels() { return std::make_unique<CpuKernels>(); }

}  // namespace dlp::fmnist
