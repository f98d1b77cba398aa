// A feed-forward classifier over one flat parameter buffer: the "mlp" and
// "cnn" models of fmnist-train. Not thread-safe; one per rank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/layers.h"
#include "nn/kernels.h"

namespace dlp::fmnist {

class Network {
 public:
  // "mlp": 784-H-H/2-10 with ReLU (H = `hidden`, 256 by default). "cnn": two
  // 5x5 conv + ReLU + 2x2 max-pool stages (8 and 16 channels) and a dense
  // layer (`hidden` unused). InvalidArgument for other names.
  static absl::StatusOr<std::unique_ptr<Network>> Create(const std::string& model, int hidden,
                                                         Kernels* kernels);

  const std::string& model() const { return model_; }
  size_t parameter_count() const { return parameter_count_; }

  // Freshly initialised parameters (host memory) drawn from `seed`.
  std::vector<float> InitialParameters(uint64_t seed) const;

  // Called during backward as each layer's gradient is final, last layer
  // first: grads[first, first + n).
  using GradientsReady = std::function<void(size_t first, size_t n)>;

  // Forward and backward over `rows` samples (device memory): writes the
  // gradient of the summed loss to grads (every element: no zeroing needed)
  // and returns the summed loss.
  LossSum TrainStep(const float* params, const float* x, const int32_t* labels, int rows,
                    float* grads, const GradientsReady& ready = nullptr);
  // Forward and backward over `rows` samples without the parameter gradients:
  // what a rank does when the ranks multiply out the summed weight gradient
  // themselves (activation_exchange.h). Afterwards each layer's input and
  // output gradient (through its activation) are there to read.
  LossSum Backpropagate(const float* params, const float* x, const int32_t* labels, int rows);
  // A dense layer: where its weights (in x out) and bias (out) start in the parameters.
  struct DenseLayer {
    size_t index;
    int in, out;
    size_t offset;
  };
  // The layers with parameters when every one of them is dense (the "mlp"), else empty.
  std::vector<DenseLayer> DenseLayers() const;
  // After Backpropagate (x: the batch it was given).
  const float* LayerInput(size_t layer, const float* x) const {
    return layer == 0 ? x : outputs_[layer - 1].get();
  }
  const float* OutputGradient(size_t layer) const { return output_grads_[layer].get(); }

  // Calls `ready` for every layer's gradient range in the order TrainStep
  // does, without computing anything (a rank with no samples in a step).
  void GradientLayout(const GradientsReady& ready) const;
  // Forward only.
  LossSum Evaluate(const float* params, const float* x, const int32_t* labels, int rows);

 private:
  Network(std::string model, Kernels* kernels, std::vector<std::unique_ptr<Layer>> layers);
  void Reserve(int rows);
  void Forward(const float* params, const float* x, int rows);
  LossSum Step(const float* params, const float* x, const int32_t* labels, int rows, float* grads,
               const GradientsReady& ready);

  std::string model_;
  Kernels* kernels_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<size_t> offsets_;  // each layer's first parameter
  size_t parameter_count_ = 0;
  int capacity_ = 0;
  std::vector<DeviceBuffer<float>> outputs_, output_grads_;  // per layer
};

}  // namespace dlp::fmnist
