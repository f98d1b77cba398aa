#include "models/network.h"

#include "absl/strings/str_cat.h"
#include "data/dataset.h"
#include "dlp/trace.h"
#include "nn/rng.h"

namespace dlp::fmnist {

absl::StatusOr<std::unique_ptr<Network>> Network::Create(const std::string& model, int hidden,
                                                         Kernels* kernels) {
  std::vector<std::unique_ptr<Layer>> layers;
  if (model == "mlp") {
    layers.push_back(MakeDense(kImageSize, hidden, true));
    layers.push_back(MakeDense(hidden, hidden / 2, true));
    layers.push_back(MakeDense(hidden / 2, kClasses, false));
  } else if (model == "cnn") {
    layers.push_back(MakeConv(28, 28, 1, 8, 5));
    layers.push_back(MakeMaxPool(28, 28, 8));
    layers.push_back(MakeConv(14, 14, 8, 16, 5));
    layers.push_back(MakeMaxPool(14, 14, 16));
    layers.push_back(MakeDense(7 * 7 * 16, kClasses, false));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown model \"", model, "\" (expected mlp or cnn)"));
  }
  return std::unique_ptr<Network>(new Network(model, kernels, std::move(layers)));
}

Network::Network(std::string model, Kernels* kernels, std::vector<std::unique_ptr<Layer>> layers)
    : model_(std::move(model)), kernels_(kernels), layers_(std::move(layers)) {
  for (const auto& layer : layers_) {
    offsets_.push_back(parameter_count_);
    parameter_count_ += layer->parameter_count();
  }
  outputs_.resize(layers_.size());
  output_grads_.resize(layers_.size());
}

std::vector<float> Network::InitialParameters(uint64_t seed) const {
  std::vector<float> params(parameter_count_, 0.0f);
  Rng rng(seed ^ 0x5eed5eed5eed5eedULL);
  for (size_t i = 0; i < layers_.size(); ++i) layers_[i]->Init(rng, params.data() + offsets_[i]);
  return params;
}

void Network::Reserve(int rows) {
  if (rows <= capacity_) return;
  capacity_ = rows;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const size_t n = static_cast<size_t>(rows) * layers_[i]->output_size();
    outputs_[i] = DeviceBuffer<float>(kernels_, n);
    output_grads_[i] = DeviceBuffer<float>(kernels_, n);
    layers_[i]->Reserve(*kernels_, rows);
  }
}

void Network::Forward(const float* params, const float* x, int rows) {
  Reserve(rows);
  const float* in = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    layers_[i]->Forward(*kernels_, params + offsets_[i], in, rows, outputs_[i].get());
    in = outputs_[i].get();
  }
}

LossSum Network::TrainStep(const float* params, const float* x, const int32_t* labels, int rows,
                           float* grads, const GradientsReady& ready) {
  return Step(params, x, labels, rows, grads, ready);
}

LossSum Network::Backpropagate(const float* params, const float* x, const int32_t* labels,
                               int rows) {
  return Step(params, x, labels, rows, nullptr, nullptr);
}

std::vector<Network::DenseLayer> Network::DenseLayers() const {
  std::vector<DenseLayer> dense;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i]->parameter_count() == 0) continue;
    const std::optional<Layer::DenseShape> shape = layers_[i]->dense();
    if (!shape) return {};
    dense.push_back({i, shape->in, shape->out, offsets_[i]});
  }
  return dense;
}

// Without grads (Backpropagate), no parameter gradients.
LossSum Network::Step(const float* params, const float* x, const int32_t* labels, int rows,
                      float* grads, const GradientsReady& ready) {
  dlp_trace_begin_cat("forward", "phase");
  Forward(params, x, rows);
  const size_t last = layers_.size() - 1;
  const LossSum loss = kernels_->SoftmaxCrossEntropy(outputs_[last].get(), labels, rows,
                                                     kClasses, output_grads_[last].get());
  dlp_trace_end();
  dlp_trace_begin_cat("backward", "phase");
  for (size_t i = last + 1; i-- > 0;) {
    const float* in = i == 0 ? x : outputs_[i - 1].get();
    float* dx = i == 0 ? nullptr : output_grads_[i - 1].get();
    layers_[i]->Backward(*kernels_, params + offsets_[i], in, outputs_[i].get(),
                         output_grads_[i].get(), rows,
                         grads != nullptr ? grads + offsets_[i] : nullptr, dx);
    if (ready) ready(offsets_[i], layers_[i]->parameter_count());
  }
  dlp_trace_end();
  return loss;
}

void Network::GradientLayout(const GradientsReady& ready) const {
  for (size_t i = layers_.size(); i-- > 0;) ready(offsets_[i], layers_[i]->parameter_count());
}

LossSum Network::Evaluate(const float* params, const float* x, const int32_t* labels, int rows) {
  Forward(params, x, rows);
  return kernels_->SoftmaxCrossEntropy(outputs_.back().get(), labels, rows, kClasses, nullptr);
}

}  // namespace dlp::fmnist
