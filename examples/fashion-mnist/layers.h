// The layers the two models are built from. Each owns a slice of the flat
// parameter (and gradient) buffer, which is what the trainer allreduces and
// checkpoints. ReLU is fused into Dense and Conv: backward needs only the output.
#pragma once

#include <cstddef>
#include <memory>

#include "kernels.h"
#include "rng.h"

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
  virtual void Forward(Kernels& k, const float* params, const float* x, int rows, float* y) = 0;
  // Given the forward input x, output y and output gradient dy (which may be
  // modified), writes the parameter gradients to grads and dx unless null.
  virtual void Backward(Kernels& k, const float* params, const float* x, const float* y,
                        float* dy, int rows, float* grads, float* dx) = 0;
};

// y = x W + b, optionally followed by ReLU.
std::unique_ptr<Layer> MakeDense(int in, int out, bool relu);
// A k x k same-size convolution of an h x w x cin NHWC image to cout channels, with ReLU.
std::unique_ptr<Layer> MakeConv(int h, int w, int cin, int cout, int k);
// 2x2 max pooling, stride 2.
std::unique_ptr<Layer> MakeMaxPool(int h, int w, int c);

}  // namespace dlp::fmnist
