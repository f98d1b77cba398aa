// The default step, as a PyTorch DDP or Keras program takes it: each rank sums
// the gradient over its samples, all-reduces it with the loss, and applies the
// whole update to its own copy of the model. The gradient goes in buckets while
// backward runs (gradient_buckets.h), or in one dlp_allreduce after it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gradient_buckets.h"
#include "ranks.h"
#include "step/training_step.h"

namespace dlp::fmnist {

class DataParallelStep : public TrainingStep {
 public:
  // A model of `count` parameters; `bucket_bytes`: the smallest bucket, with `overlap`.
  DataParallelStep(Ranks* ranks, Kernels* kernels, size_t count, bool overlap, size_t bucket_bytes);

  std::string Describe() const override;
  absl::Status Load(const float* params, const float* velocity) override;
  float* params() const override { return params_.get(); }
  float* velocity() const override { return velocity_.get(); }
  absl::StatusOr<Result> Run(Network& net, const float* x, const int32_t* labels, int rows,
                             const Update& update) override;

 private:
  Ranks* ranks_;
  Kernels* kernels_;
  const size_t count_;
  DeviceBuffer<float> params_, velocity_;
  // The summed loss, then the flat gradient: what each step reduces, on the
  // host. On the CPU the network writes its gradient there, saving two copies.
  std::vector<float> flat_;
  DeviceBuffer<float> device_grads_;  // a GPU's gradient
  float* grads_;
  std::unique_ptr<GradientBuckets> buckets_;  // with overlap
  Network::GradientsReady ready_;             // backward's hook for the buckets
};

}  // namespace dlp::fmnist
