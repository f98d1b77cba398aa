// SHA-256 (FIPS 180-4) for artifact and model checksums. Its own code rather
// than OpenSSL's: libdlp opens OpenSSL only for https:// (https_module.h), and
// a download over plain HTTP or from a Slurm folder is checked all the same.
// Not thread-safe; one Sha256 per stream.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace dlp::internal {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string HexDigest();

 private:
  void Block(const unsigned char* p);

  std::array<uint32_t, 8> h_;
  unsigned char buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

std::string Sha256Hex(std::string_view data);
// The digest of what remains to read from `fd` (read to its end).
absl::StatusOr<std::string> Sha256OfFd(int fd);
// True for 64 lowercase hex digits.
bool IsSha256Hex(std::string_view text);

}  // namespace dlp::internal
