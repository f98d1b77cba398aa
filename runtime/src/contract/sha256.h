// SHA-256 (FIPS 180-4), the one implementation: the checksums of artifacts
// and models (in hex, below; a download over plain HTTP or from a Slurm
// folder is checked all the same) and the runtime's HMAC over the job's
// secret (common/hmac_sha256.h) both use it. Its own code rather than OpenSSL's:
// libdlp opens OpenSSL only for https://, and trainers that embed the
// collectives often bring their own libcrypto.
// Not thread-safe; one Sha256 per stream.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace dlp::contract {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  // The 32-byte digest; the object is spent afterwards.
  std::string Digest();
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string HexDigest();

 private:
  void Block(const unsigned char* p);

  std::array<uint32_t, 8> h_;
  unsigned char buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

// The 32-byte digest of `data`.
std::string Sha256Of(std::string_view data);

// The digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);
// The digest of what remains to read from `fd` (read to its end), in hex.
absl::StatusOr<std::string> Sha256OfFd(int fd);
// True for 64 lowercase hex digits.
bool IsSha256Hex(std::string_view text);

}  // namespace dlp::contract
