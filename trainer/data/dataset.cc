#include "data/dataset.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace dlp::fmnist {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned byte, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned byte, 1 dimension

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Decompresses up to max_bytes (all when 0): a subset need not inflate the whole file.
absl::StatusOr<std::string> ReadGzip(const std::string& path, size_t max_bytes) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) {
    return absl::NotFoundError(absl::StrCat(
        "cannot open ", path, ": ", std::strerror(errno),
        " (install Debian's dataset-fashion-mnist package, or pass --data DIR)"));
  }
  std::string data;
  char buffer[1 << 16];
  while (max_bytes == 0 || data.size() < max_bytes) {
    const size_t want = max_bytes == 0 ? sizeof(buffer)
                                       : std::min(sizeof(buffer), max_bytes - data.size());
    const int n = gzread(file.get(), buffer, static_cast<unsigned>(want));
    if (n < 0) {
      int code = 0;
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": cannot decompress: ", gzerror(file.get(), &code)));
    }
    if (n == 0) break;
    data.append(buffer, n);
  }
  return data;
}

uint32_t BigEndian32(const std::string& data, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data() + offset);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

absl::Status CheckHeader(const std::string& path, const std::string& data, uint32_t magic,
                         size_t header_size) {
  if (data.size() < header_size) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": truncated IDX header"));
  }
  if (BigEndian32(data, 0) != magic) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an IDX file of the expected kind"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Dataset> LoadDataset(const std::string& dir, const std::string& prefix,
                                    int limit) {
  const std::string images_path = absl::StrCat(dir, "/", prefix, "-images-idx3-ubyte.gz");
  const std::string labels_path = absl::StrCat(dir, "/", prefix, "-labels-idx1-ubyte.gz");
  const size_t wanted = limit > 0 ? static_cast<size_t>(limit) : 0;
  DLP_ASSIGN_OR_RETURN(std::string images,
                       ReadGzip(images_path, wanted > 0 ? 16 + wanted * kImageSize : 0));
  DLP_ASSIGN_OR_RETURN(std::string labels, ReadGzip(labels_path, wanted > 0 ? 8 + wanted : 0));
  DLP_RETURN_IF_ERROR(CheckHeader(images_path, images, kImagesMagic, 16));
  DLP_RETURN_IF_ERROR(CheckHeader(labels_path, labels, kLabelsMagic, 8));

  const uint32_t count = BigEndian32(images, 4);
  if (BigEndian32(images, 8) != kImageSide || BigEndian32(images, 12) != kImageSide) {
    return absl::InvalidArgumentError(absl::StrCat(images_path, ": images are not 28x28"));
  }
  if (BigEndian32(labels, 4) != count) {
    return absl::InvalidArgumentError(absl::StrCat(labels_path, ": ", BigEndian32(labels, 4),
                                                   " labels for ", count, " images"));
  }
  Dataset set;
  set.count = limit > 0 ? std::min<int>(limit, count) : static_cast<int>(count);
  if (images.size() < 16 + static_cast<size_t>(set.count) * kImageSize ||
      labels.size() < 8 + static_cast<size_t>(set.count)) {
    return absl::InvalidArgumentError(absl::StrCat(images_path, ": shorter than its header says"));
  }
  set.labels.resize(set.count);
  const auto* pixels = reinterpret_cast<const uint8_t*>(images.data() + 16);
  set.pixels.assign(pixels, pixels + static_cast<size_t>(set.count) * kImageSize);
  for (int i = 0; i < set.count; ++i) {
    const int label = static_cast<unsigned char>(labels[8 + i]);
    if (label >= kClasses) {
      return absl::InvalidArgumentError(absl::StrCat(labels_path, ": label ", label,
                                                     " out of range at index ", i));
    }
    set.labels[i] = label;
  }
  return set;
}

}  // namespace dlp::fmnist
