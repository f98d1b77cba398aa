// Fashion-MNIST in memory, read from the gzip'd IDX files of Debian's
// dataset-fashion-mnist package.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlp/status.h"

namespace dlp::fmnist {

inline constexpr char kDefaultDataDir[] = "/usr/share/datasets/fashion-mnist";
inline constexpr int kImageSide = 28;
inline constexpr int kImageSize = kImageSide * kImageSide;
inline constexpr int kClasses = 10;

// Raw pixels (kept as bytes: a quarter of the memory per rank), one row per sample.
struct Dataset {
  int count = 0;
  std::vector<uint8_t> pixels;  // count * kImageSize
  std::vector<int32_t> labels;  // count, each in [0, kClasses)
};

// A pixel as the models see it: scaled to [0, 1] and centred on the dataset mean.
inline float PixelValue(uint8_t p) { return p * (1.0f / 255.0f) - 0.286f; }

// Reads DIR/{prefix}-images-idx3-ubyte.gz and DIR/{prefix}-labels-idx1-ubyte.gz
// (prefix "train" or "t10k"), keeping the first `limit` samples when limit > 0.
// NotFound names the missing file and the package that provides it;
// InvalidArgument describes a corrupt or mismatched file.
absl::StatusOr<Dataset> LoadDataset(const std::string& dir, const std::string& prefix,
                                    int limit);

}  // namespace dlp::fmnist
