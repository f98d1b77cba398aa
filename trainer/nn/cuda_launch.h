// Launchers of the CUDA kernels (cuda_launch.cu), declared in plain C++ so the
// host-compiled CudaKernels can call them. Pointers are device memory; launch
// errors surface through cudaGetLastError().
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlp::fmnist::cuda {

void AddRowVector(float* y, const float* v, int rows, int cols);
void Relu(float* x, size_t n);
void ReluBackward(const float* y, float* dy, size_t n);
// Per row: the loss, whether the arg-max is the label, and (unless null) softmax - onehot.
void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int rows, int cols,
                         float* dlogits, float* row_loss, int* row_correct);
void MomentumStep(float* p, float* v, const float* g, size_t n, float lr, float mu, float scale,
                  float wd);
void Im2Col(const float* x, int batch, int h, int w, int c, int k, float* cols);
void Col2Im(const float* dcols, int batch, int h, int w, int c, int k, float* dx);
void MaxPool(const float* x, int batch, int h, int w, int c, float* y, int32_t* argmax);
// dx must be zeroed; pooling windows do not overlap, so each input has one writer.
void MaxPoolBackward(const float* dy, const int32_t* argmax, size_t outputs, float* dx);

}  // namespace dlp::fmnist::cuda
