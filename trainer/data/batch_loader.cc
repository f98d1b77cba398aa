#include "data/batch_loader.h"

#include "data/dataset.h"

namespace dlp::fmnist {

BatchLoader::BatchLoader(Kernels* k, int capacity, float* x) : kernels_(k), labels_(k, capacity) {
  if (x == nullptr) {
    own_x_ = DeviceBuffer<float>(k, static_cast<size_t>(capacity) * kImageSize);
    x = own_x_.get();
  }
  x_ = x;
}

void BatchLoader::Load(const Samples& set, const int* order, int rows) {
  // On the CPU straight into place; for a GPU through the host.
  float* pixels = x_;
  if (!kernels_->host_memory()) {
    staging_.resize(static_cast<size_t>(rows) * kImageSize);
    pixels = staging_.data();
  }
  host_labels_.resize(rows);
  for (int i = 0; i < rows; ++i) {
    const uint8_t* src = set.pixels + static_cast<size_t>(order[i]) * kImageSize;
    float* dst = pixels + static_cast<size_t>(i) * kImageSize;
    for (int p = 0; p < kImageSize; ++p) dst[p] = PixelValue(src[p]);
    host_labels_[i] = set.labels[order[i]];
  }
  if (pixels != x_) kernels_->CopyToDevice(x_, pixels, staging_.size() * sizeof(float));
  kernels_->CopyToDevice(labels_.get(), host_labels_.data(), rows * sizeof(int32_t));
}

}  // namespace dlp::fmnist
