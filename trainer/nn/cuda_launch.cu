// The CUDA kernels behind CudaKernels: one thread per output element, launched
// on the default stream. Kept free of Abseil so nvcc sees only plain C++.
#include <cuda_runtime.h>

#include <cmath>

#include "nn/cuda_launch.h"

namespace dlp::fmnist::cuda {
namespace {

constexpr int kThreads = 256;

int Blocks(size_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void AddRowVectorKernel(float* y, const float* v, size_t n, int cols) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n) y[i] += v[i % cols];
}

__global__ void ReluKernel(float* x, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void ReluBackwardKernel(const float* y, float* dy, size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n && !(y[i] > 0.0f)) dy[i] = 0.0f;
}

__global__ void SoftmaxKernel(const float* logits, const int32_t* labels, int rows, int cols,
                              float* dlogits, float* row_loss, int* row_correct) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* z = logits + static_cast<size_t>(r) * cols;
  int best = 0;
  for (int c = 1; c < cols; ++c) best = z[c] > z[best] ? c : best;
  const float zmax = z[best];
  double total = 0;
  for (int c = 0; c < cols; ++c) total += exp(static_cast<double>(z[c] - zmax));
  const int label = labels[r];
  row_loss[r] = static_cast<float>(log(total) - (z[label] - zmax));
  row_correct[r] = best == label ? 1 : 0;
  if (dlogits == nullptr) return;
  float* d = dlogits + static_cast<size_t>(r) * cols;
  for (int c = 0; c < cols; ++c) d[c] = static_cast<float>(exp(static_cast<double>(z[c] - zmax)) / total);
  d[label] -= 1.0f;
}

__global__ void MomentumKernel(float* p, float* v, const float* g, size_t n, float lr, float mu,
                               float scale, float wd) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  v[i] = mu * v[i] + scale * g[i] + wd * p[i];
  p[i] -= lr * v[i];
}

__global__ void Im2ColKernel(const float* x, int batch, int h, int w, int c, int k, float* cols) {
  const size_t window = static_cast<size_t>(k) * k * c;
  const size_t n = static_cast<size_t>(batch) * h * w * window;
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const size_t pixel = i / window;
  const int rest = static_cast<int>(i % window);
  const int ci = rest % c, kx = (rest / c) % k, ky = rest / (c * k);
  const int xx = static_cast<int>(pixel % w), y = static_cast<int>((pixel / w) % h);
  const size_t b = pixel / (static_cast<size_t>(w) * h);
  const int iy = y + ky - k / 2, ix = xx + kx - k / 2;
  cols[i] = (iy < 0 || iy >= h || ix < 0 || ix >= w)
                ? 0.0f
                : x[((b * h + iy) * w + ix) * c + ci];
}

// Gathers, for each input element, the window gradients that read it.
__global__ void Col2ImKernel(const float* dcols, int batch, int h, int w, int c, int k,
                             float* dx) {
  const size_t n = static_cast<size_t>(batch) * h * w * c;
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const int ci = static_cast<int>(i % c);
  const int ix = static_cast<int>((i / c) % w), iy = static_cast<int>((i / c / w) % h);
  const size_t b = i / (static_cast<size_t>(c) * w * h);
  const size_t window = static_cast<size_t>(k) * k * c;
  float sum = 0.0f;
  for (int ky = 0; ky < k; ++ky) {
    const int y = iy - ky + k / 2;
    if (y < 0 || y >= h) continue;
    for (int kx = 0; kx < k; ++kx) {
      const int xx = ix - kx + k / 2;
      if (xx < 0 || xx >= w) continue;
      sum += dcols[((b * h + y) * w + xx) * window + (static_cast<size_t>(ky) * k + kx) * c + ci];
    }
  }
  dx[i] = sum;
}

__global__ void MaxPoolKernel(const float* x, int batch, int h, int w, int c, float* y,
                              int32_t* argmax) {
  const int oh = h / 2, ow = w / 2;
  const size_t n = static_cast<size_t>(batch) * oh * ow * c;
  const size_t o = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (o >= n) return;
  const int ci = static_cast<int>(o % c);
  const int ox = static_cast<int>((o / c) % ow), oy = static_cast<int>((o / c / ow) % oh);
  const size_t b = o / (static_cast<size_t>(c) * ow * oh);
  float best = -INFINITY;
  int32_t where = 0;
  for (int dy = 0; dy < 2; ++dy) {
    for (int dx = 0; dx < 2; ++dx) {
      const int32_t i = static_cast<int32_t>(((b * h + 2 * oy + dy) * w + 2 * ox + dx) * c + ci);
      if (x[i] > best) best = x[i], where = i;
    }
  }
  y[o] = best;
  argmax[o] = where;
}

// Pooling windows do not overlap, so every input has at most one writer.
__global__ void MaxPoolBackwardKernel(const float* dy, const int32_t* argmax, size_t n, float* dx) {
  const size_t o = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (o < n) dx[argmax[o]] = dy[o];
}

}  // namespace

void AddRowVector(float* y, const float* v, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  if (n > 0) AddRowVectorKernel<<<Blocks(n), kThreads>>>(y, v, n, cols);
}
void Relu(float* x, size_t n) {
  if (n > 0) ReluKernel<<<Blocks(n), kThreads>>>(x, n);
}
void ReluBackward(const float* y, float* dy, size_t n) {
  if (n > 0) ReluBackwardKernel<<<Blocks(n), kThreads>>>(y, dy, n);
}
void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int rows, int cols,
                         float* dlogits, float* row_loss, int* row_correct) {
  if (rows > 0) {
    SoftmaxKernel<<<Blocks(rows), kThreads>>>(logits, labels, rows, cols, dlogits, row_loss,
                                              row_correct);
  }
}
void MomentumStep(float* p, float* v, const float* g, size_t n, float lr, float mu, float scale,
                  float wd) {
  if (n > 0) MomentumKernel<<<Blocks(n), kThreads>>>(p, v, g, n, lr, mu, scale, wd);
}
void Im2Col(const float* x, int batch, int h, int w, int c, int k, float* cols) {
  const size_t n = static_cast<size_t>(batch) * h * w * k * k * c;
  if (n > 0) Im2ColKernel<<<Blocks(n), kThreads>>>(x, batch, h, w, c, k, cols);
}
void Col2Im(const float* dcols, int batch, int h, int w, int c, int k, float* dx) {
  const size_t n = static_cast<size_t>(batch) * h * w * c;
  if (n > 0) Col2ImKernel<<<Blocks(n), kThreads>>>(dcols, batch, h, w, c, k, dx);
}
void MaxPool(const float* x, int batch, int h, int w, int c, float* y, int32_t* argmax) {
  const size_t n = static_cast<size_t>(batch) * (h / 2) * (w / 2) * c;
  if (n > 0) MaxPoolKernel<<<Blocks(n), kThreads>>>(x, batch, h, w, c, y, argmax);
}
void MaxPoolBackward(const float* dy, const int32_t* argmax, size_t outputs, float* dx) {
  if (outputs > 0) MaxPoolBackwardKernel<<<Blocks(outputs), kThreads>>>(dy, argmax, outputs, dx);
}

}  // namespace dlp::fmnist::cuda
