// Gradient allreduce overlapped with backward, in buckets, as PyTorch DDP does:
// backward hands each layer's gradient over as soon as it is computed (last
// layer first); adjacent layers are coalesced into buckets of at least
// `bucket_bytes`, and a bucket is all-reduced on this class's own thread
// while backward goes on with the layers before it.
//
// The communicator is used by one thread at a time: by the bucket thread
// between BeginStep and EndStep, by the caller otherwise.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>

#include "dlp/status.h"
#include "ranks.h"

namespace dlp::fmnist {

class GradientBuckets {
 public:
  // `flat` is the host buffer of count + 1 floats the step is reduced in: the
  // loss in flat[0], reduced with the final bucket, then the gradient.
  GradientBuckets(Ranks* ranks, float* flat, size_t count, size_t bucket_bytes);
  ~GradientBuckets();

  void BeginStep();
  // Gradient elements [first, first + n) (flat[1 + first, ...)) are final. Called in descending
  // order of `first`, covering [0, count) once per step.
  void Ready(size_t first, size_t n);
  // After the last Ready and once flat[0] holds the loss: waits until every
  // bucket is reduced. The first failed allreduce's error.
  absl::Status EndStep();

 private:
  struct Bucket {
    size_t first, n;
  };
  void Run();
  void Push(size_t first, size_t n);

  Ranks* const ranks_;
  float* const flat_;
  const size_t count_, bucket_floats_;
  size_t pending_first_ = 0, pending_n_ = 0;  // layers not yet in a bucket

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Bucket> queue_;
  size_t in_flight_ = 0;
  bool stop_ = false;
  absl::Status error_;
  std::thread thread_;
};

}  // namespace dlp::fmnist
