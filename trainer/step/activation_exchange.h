// How the ranks on one host sum a dense model's weight gradient without any
// rank writing a whole one.
//
// Each rank leaves its layers' inputs X and output gradients dY in shared
// memory: (in + out) floats a sample and layer, where the layer's weight
// gradient X^T dY is in x out floats. Rank r then multiplies out its rows
// [a, b) of every summed weight gradient, the sum over the ranks q of
// X_q[:, a:b]^T dY_q, straight from the others' memory, a few rows at a time,
// and updates those rows of the one shared model (shard_exchange.h) while they
// are in L1. Summing N gradients of the model's size every step (and writing
// them) is what ranks that share cores paid twice over; here nothing the size
// of the model is written but the model itself.
//
// The floats are those of summing the ranks' gradients in rank order
// (SumInOrder) as long as a rank's batch is at most 256 samples.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "models/network.h"
#include "nn/kernels.h"
#include "parallel/collective.h"

namespace dlp::fmnist {

class ActivationExchange {
 public:
  // `layers`: Network::DenseLayers() of a model with `parameters` floats;
  // `rows`: the most samples a rank has in a step. FailedPrecondition when the
  // ranks are not all on one host.
  static absl::StatusOr<std::unique_ptr<ActivationExchange>> Create(
      Collective* group, Kernels* kernels, std::vector<Network::DenseLayer> layers,
      size_t parameters, int rows);

  // The one model's parameters and velocity (`parameters` floats each).
  float* params() const { return params_; }
  float* velocity() const { return velocity_; }
  // Sets the model every rank starts from (the same on every rank).
  absl::Status Load(const float* params, const float* velocity);

  // Where this rank may load its batch (`rows` samples of the first layer's
  // input), so that Publish need not copy it.
  float* batch_slot() const { return slots_[group_->rank()][0].input; }
  // After net.Backpropagate over `rows` samples of the batch x (rows 0 for a
  // rank without samples in this step): leaves this rank's factors and loss
  // for the others.
  absl::Status Publish(const Network& net, const float* x, int rows, float loss);
  // Applies the summed gradient to parameters [first, first + n).
  using Update = std::function<void(size_t first, const float* grads, size_t n)>;
  // Once every rank published: calls `update` for this rank's share of the
  // model and returns the loss summed over the ranks once every rank has
  // updated its share.
  absl::StatusOr<float> SumAndUpdate(const Update& update);

 private:
  struct Slot {  // where a rank's factors of one layer are
    float* input;
    float* output_grad;
  };
  ActivationExchange(Collective* group, Kernels* kernels, std::vector<Network::DenseLayer> layers,
                     size_t parameters, int rows, std::unique_ptr<SharedBlocks> blocks);
  void MultiplyOutLayer(size_t l, const Update& update);

  Collective* group_;
  Kernels* kernels_;  // the CPU's: the bias's column sums
  const std::vector<Network::DenseLayer> layers_;
  std::unique_ptr<SharedBlocks> blocks_;
  size_t parameters_;
  int capacity_;  // samples a slot holds
  float* params_ = nullptr;
  float* velocity_ = nullptr;
  std::vector<float*> headers_;           // each rank's loss and samples
  std::vector<std::vector<Slot>> slots_;  // [rank][layer]
  std::vector<int> rows_;                 // each rank's samples in this step
  std::vector<float> chunk_, bias_;
  // Each rank's column sums of one layer, bias_.size() apart, and where each
  // rank's start (made once).
  std::vector<float> bias_terms_;
  std::vector<const float*> bias_term_of_rank_;
};

}  // namespace dlp::fmnist
