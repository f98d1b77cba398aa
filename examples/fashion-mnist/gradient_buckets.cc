#include "gradient_buckets.h"

#include <algorithm>

#include "dlp/trace.h"

namespace dlp::fmnist {

GradientBuckets::GradientBuckets(Ranks* ranks, float* flat, size_t count, size_t bucket_bytes)
    : ranks_(ranks),
      flat_(flat),
      count_(count),
      bucket_floats_(std::max<size_t>(1, bucket_bytes / sizeof(float))),
      thread_([this] { Run(); }) {}

GradientBuckets::~GradientBuckets() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void GradientBuckets::BeginStep() {
  pending_first_ = count_;
  pending_n_ = 0;
}

void GradientBuckets::Ready(size_t first, size_t n) {
  pending_first_ = first;
  pending_n_ += n;
  // The bucket that reaches index 0 waits for the loss: EndStep sends it.
  if (pending_n_ >= bucket_floats_ && first > 0) {
    Push(1 + pending_first_, pending_n_);
    pending_n_ = 0;
  }
}

void GradientBuckets::Push(size_t first, size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({first, n});
    ++in_flight_;
  }
  cv_.notify_all();
}

absl::Status GradientBuckets::EndStep() {
  Push(0, pending_n_ + 1);  // the loss, and the rest of the gradient after it
  pending_n_ = 0;
  // Time spent here is communication the step could not hide.
  dlp_trace_begin_cat("allreduce wait", "comm");
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return in_flight_ == 0; });
  dlp_trace_end();
  absl::Status error = std::move(error_);
  error_ = absl::OkStatus();
  return error;
}

void GradientBuckets::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const Bucket b = queue_.front();
    queue_.pop_front();
    const bool failed = !error_.ok();
    lock.unlock();
    // After a failure the ranks no longer agree on the collectives: skip the rest.
    absl::Status status = failed ? absl::OkStatus() : ranks_->AllreduceSum(flat_ + b.first, b.n);
    lock.lock();
    if (!status.ok() && error_.ok()) error_ = std::move(status);
    if (--in_flight_ == 0) cv_.notify_all();
  }
}

}  // namespace dlp::fmnist
