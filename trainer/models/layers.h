// The layers the two models are built from. Each owns a slice of the flat
// parameter (and gradient) buffer, which is what the trainer allreduces and
// checkpoints. ReLU is fused into Dense and Conv: backward needs only the output.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "nn/kernels.h"
#include "nn/rng.h"

namespace dlp::fmnist {

class Layer {
 public:
  virtual ~Layer() = default;
  virtual size_t parameter_count() const { return 0; }
  // Floats per sample in the output.
  virtual int output_size() const = 0;
  // Writes freshly initialised parameters (host memory, parameter_count() floats).
  virtual void Init(Rng& /*rng*/, float* /*params*/) const {}
  // Sizes this layer's scratch memory for batches of up to `rows` samples.
  virtual void Reserve(Kernels& /*k*/, int /*rows*/) {}
  // Dense layers: the weights' shape (in x out, then a bias of out).
  struct DenseShape {
    int in, out;
  };
  virtual std::optional<DenseShape> dense() const { return std::nullopt; }
  virtual void Forward(Kernels& k, const float* params, const float* x, int rows, float* y) = 0;

  // Backward, given the forward input x, output y and output gradient dy, in
  // three steps: dy through the activation (in place), the parameter gradients
  // (written to grads unless null) and the input gradient (to dx unless null).
  void Backward(Kernels& k, const float* params, const float* x, const float* y, float* dy,
                int rows, float* grads, float* dx) {
    ThroughActivation(k, y, dy, rows);
    if (grads != nullptr) ParameterGradient(k, x, dy, rows, grads);
    if (dx != nullptr) InputGradient(k, params, dy, rows, dx);
  }
  virtual void ThroughActivation(Kernels& /*k*/, const float* /*y*/, float* /*dy*/, int /*rows*/) {}
  virtual void ParameterGradient(Kernels& /*k*/, const float* /*x*/, const float* /*dy*/,
                                 int /*rows*/, float* /*grads*/) {}
  virtual void InputGradient(Kernels& k, const float* params, const float* dy, int rows,
                             float* dx) = 0;
};

// y = x W + b, optionally followed by ReLU.
std::unique_ptr<Layer> MakeDense(int in, int out, bool relu);
// A k x k same-size convolution of an h x w x cin NHWC image to cout channels, with ReLU.
std::unique_ptr<Layer> MakeConv(int h, int w, int cin, int cout, int k);
// 2x2 max pooling, stride 2.
std::unique_ptr<Layer> MakeMaxPool(int h, int w, int c);

}  // namespace dlp::fmnist
