// Copies a batch of samples, in the order the trainer draws them, into
// contiguous device buffers.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "data/host_dataset.h"
#include "nn/kernels.h"

namespace dlp::fmnist {

// Rank `rank`'s contiguous share [lo, hi) of `n` items (a global batch, the
// test set) cut among `size` ranks.
inline std::pair<int, int> RankSlice(int n, int rank, int size) {
  return {static_cast<int>(int64_t{n} * rank / size),
          static_cast<int>(int64_t{n} * (rank + 1) / size)};
}

class BatchLoader {
 public:
  // Room for `capacity` samples; the pixels go to `x` when given (CPU memory
  // for `capacity` samples, such as the activation exchange's), else to the
  // loader's own buffer.
  BatchLoader(Kernels* k, int capacity, float* x = nullptr);

  // Samples order[0, rows) of `set`.
  void Load(const Samples& set, const int* order, int rows);
  const float* x() const { return x_; }
  const int32_t* labels() const { return labels_.get(); }

 private:
  Kernels* kernels_;
  DeviceBuffer<float> own_x_;
  float* x_;
  DeviceBuffer<int32_t> labels_;
  std::vector<float> staging_;  // a GPU's pixels on their way
  std::vector<int32_t> host_labels_;
};

}  // namespace dlp::fmnist
