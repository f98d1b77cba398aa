// A feed-forward classifier over one flat parameter buffer: the "mlp" and
// "cnn" models of fmnist-train. Not thread-safe; one per rank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"
#include "layers.h"

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
  // Calls `ready` for every layer's gradient range in the order TrainStep
  // does, without computing anything (a rank with no samples in a step).
  void GradientLayout(const GradientsReady& ready) const;
  // Forward only.
  LossSum Evaluate(const float* params, const float* x, const int32_t* labels, int rows);

 private:
  Network(std::string model, Kernels* kernels, std::vector<std::unique_ptr<Layer>> layers);
  void Reserve(int rows);
  void Forward(const float* params, const float* x, int rows);

  std::string model_;
  Kernels* kernels_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<size_t> offsets_;  // each layer's first parameter
  size_t parameter_count_ = 0;
  int capacity_ = 0;
  std::vector<DeviceBuffer<float>> outputs_, output_grads_;  // per layer
};

}  // namespace dlp::fmnist
