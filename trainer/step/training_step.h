// One optimizer step of data-parallel training, as the trainer's loop sees it:
// a rank's forward and backward over its slice of the global batch, its
// gradient summed with every other rank's, and the update. The example's
// default step (examples/fashion-mnist/data_parallel_step.h) all-reduces the
// gradient; the sharded steps of sharded_step.h are this engine's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "dlp/status.h"
#include "models/network.h"
#include "nn/kernels.h"

namespace dlp::fmnist {

class TrainingStep {
 public:
  virtual ~TrainingStep() = default;
  // How this step passes the gradient, for rank 0's first note (", gradients ...").
  virtual std::string Describe() const = 0;

  // Sets the model every rank starts from (the same on every rank; host memory).
  virtual absl::Status Load(const float* params, const float* velocity) = 0;
  // The whole model, in the kernels' memory: what evaluation and checkpoints read.
  virtual float* params() const = 0;
  virtual float* velocity() const = 0;
  // Where this rank's batch should be loaded (CPU memory for the largest
  // slice), or null for the loader's own buffer.
  virtual float* batch_slot() const { return nullptr; }

  // Applies the summed gradient `grads` to n parameters and their velocities.
  using Update = std::function<void(float* params, float* velocity, const float* grads, size_t n)>;
  struct Result {
    LossSum local;   // this rank's samples
    float loss = 0;  // summed over every rank's samples
  };
  // Trains on this rank's `rows` samples of the step (0 for a rank without
  // any): every rank calls it once a step.
  virtual absl::StatusOr<Result> Run(Network& net, const float* x, const int32_t* labels, int rows,
                                     const Update& update) = 0;
  // Before a checkpoint: every rank's momentum brought together where a rank
  // holds only its share of it.
  virtual absl::Status GatherVelocity() { return absl::OkStatus(); }
};

}  // namespace dlp::fmnist
