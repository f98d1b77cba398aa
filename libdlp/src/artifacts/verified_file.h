// Writes a downloaded file (an artifact, a model) under a folder and checks it
// against the size and SHA-256 the server listed for it: the bytes go to a
// hidden ".NAME.part" beside the target, which is renamed into place only when
// both match, so a truncated or corrupted download never leaves a file that
// looks complete. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "contract/output_folder.h"
#include "contract/sha256.h"

namespace dlp::internal {

class VerifiedFile {
 public:
  // `relative` is validated as an artifact path (no "..", not absolute), so
  // the file lands under `dir`; missing folders are created.
  static absl::StatusOr<std::unique_ptr<VerifiedFile>> Create(const std::string& dir,
                                                              std::string_view relative,
                                                              std::string expected_sha256,
                                                              int64_t expected_size);
  ~VerifiedFile();  // removes the part file unless Finish succeeded

  absl::Status Append(std::string_view data);
  // DataLoss naming both digests (or sizes) on a mismatch, the part file
  // removed; else the file is in place. Returns its path.
  absl::StatusOr<std::string> Finish();

 private:
  VerifiedFile() = default;

  std::string target_, part_;
  std::string expected_sha256_;
  int64_t expected_size_ = 0;
  int64_t written_ = 0;
  contract::OwnedFd fd_;
  contract::Sha256 sha_;
  bool done_ = false;
};

}  // namespace dlp::internal
