#include "data_parallel_step.h"

#include "dlp/trace.h"

namespace dlp::fmnist {

DataParallelStep::DataParallelStep(Ranks* ranks, Kernels* kernels, size_t count, bool overlap,
                                   size_t bucket_bytes)
    : ranks_(ranks),
      kernels_(kernels),
      count_(count),
      params_(kernels, count),
      velocity_(kernels, count),
      flat_(count + 1) {
  if (kernels->host_memory()) {
    grads_ = flat_.data() + 1;
  } else {
    device_grads_ = DeviceBuffer<float>(kernels, count);
    grads_ = device_grads_.get();
  }
  if (!overlap) return;
  buckets_ = std::make_unique<GradientBuckets>(ranks, flat_.data(), count, bucket_bytes);
  // A layer's final gradient goes to its bucket (through the host when the
  // device has its own memory).
  ready_ = [this](size_t first, size_t n) {
    if (!kernels_->host_memory()) {
      kernels_->CopyToHost(flat_.data() + 1 + first, grads_ + first, n * sizeof(float));
    }
    buckets_->Ready(first, n);
  };
}

std::string DataParallelStep::Describe() const {
  return buckets_ != nullptr ? ", gradients all-reduced beside backward"
                             : ", gradients all-reduced after backward";
}

absl::Status DataParallelStep::Load(const float* params, const float* velocity) {
  kernels_->CopyToDevice(params_.get(), params, count_ * sizeof(float));
  kernels_->CopyToDevice(velocity_.get(), velocity, count_ * sizeof(float));
  return kernels_->Check();
}

absl::StatusOr<TrainingStep::Result> DataParallelStep::Run(Network& net, const float* x,
                                                           const int32_t* labels, int rows,
                                                           const Update& update) {
  const bool in_place = kernels_->host_memory();
  Result r;
  // TrainStep writes every gradient element; a rank without samples sends zeros.
  if (rows <= 0) kernels_->Zero(grads_, count_);
  if (buckets_ != nullptr) buckets_->BeginStep();
  if (rows > 0) {
    r.local = net.TrainStep(params_.get(), x, labels, rows, grads_,
                            buckets_ != nullptr ? ready_ : nullptr);
  }
  if (buckets_ != nullptr) {
    if (rows <= 0) net.GradientLayout(ready_);  // its zeros still join every bucket
    DLP_RETURN_IF_ERROR(kernels_->Check());
    flat_[0] = static_cast<float>(r.local.loss);
    DLP_RETURN_IF_ERROR(buckets_->EndStep());
  } else {
    if (!in_place) kernels_->CopyToHost(flat_.data() + 1, grads_, count_ * sizeof(float));
    DLP_RETURN_IF_ERROR(kernels_->Check());
    flat_[0] = static_cast<float>(r.local.loss);
    DLP_RETURN_IF_ERROR(ranks_->AllreduceSum(flat_.data(), flat_.size()));
  }
  dlp_trace_begin_cat("optimizer", "phase");
  if (!in_place) kernels_->CopyToDevice(grads_, flat_.data() + 1, count_ * sizeof(float));
  update(params_.get(), velocity_.get(), grads_, count_);
  dlp_trace_end();
  r.loss = flat_[0];
  return r;
}

}  // namespace dlp::fmnist
