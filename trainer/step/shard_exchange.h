// How the ranks of a sharded step (step_layout.h) pass the gradient and the
// model between them.
//
// Through collectives, each rank keeps a copy of the whole model: the
// gradient is reduce-scattered and the updated shares allgathered.
//
// Through shared memory (the ranks on one host): one copy of the parameters
// and the momentum lives in rank 0's shared block, each rank's gradient in its
// own, and a rank sums its share of the gradient straight from the others'
// blocks and updates its share of the model in place. Two barriers a step
// replace both collectives, and nothing is copied: where ranks share cores
// the copies were most of the collectives' cost, and one copy of the model
// in the caches serves every rank.
//
// A dense model's ranks on one host share their activations instead of their
// gradients (activation_exchange.h).
#pragma once

#include <memory>
#include <vector>

#include "parallel/collective.h"
#include "step/step_layout.h"

namespace dlp::fmnist {

class ShardExchange {
 public:
  static std::unique_ptr<ShardExchange> ThroughCollectives(Collective* group,
                                                           const StepLayout& layout);
  // FailedPrecondition when the ranks are not all on one host.
  static absl::StatusOr<std::unique_ptr<ShardExchange>> ThroughSharedMemory(
      Collective* group, const StepLayout& layout);
  virtual ~ShardExchange() = default;

  // Whether the model lives in shared memory (for the trainer's notes).
  virtual bool shared() const = 0;
  // The parameter and velocity buffers (layout.param_size floats, zero at
  // first) and this rank's flat gradient (layout.flat_size floats).
  float* params() const { return params_; }
  float* velocity() const { return velocity_; }
  float* flat() const { return flat_; }

  // Sets the model every rank starts from (`count` parameters and velocities,
  // the same on every rank).
  virtual absl::Status Load(const float* params, const float* velocity, size_t count) = 0;
  // Once every rank wrote its loss and gradient to flat(): this rank's block
  // of flat() becomes the sum over the ranks.
  virtual absl::Status SumGradients() = 0;
  // Once every rank updated its block of the parameters (and the velocity):
  // each rank sees every block of the parameters...
  virtual absl::Status ShareParameters() = 0;
  // ...and of the velocity.
  virtual absl::Status ShareVelocity() = 0;

 protected:
  ShardExchange(Collective* group, const StepLayout& layout) : group_(group), layout_(layout) {}
  Collective* group_;
  const StepLayout layout_;
  float* params_ = nullptr;
  float* velocity_ = nullptr;
  float* flat_ = nullptr;
};

// out[i] = sources[0][i] + sources[1][i] + ... in that order, for i < n (out
// may be one of the sources).
void SumInOrder(const std::vector<const float*>& sources, float* out, size_t n);

}  // namespace dlp::fmnist
