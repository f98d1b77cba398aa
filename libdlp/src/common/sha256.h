// SHA-256 checksums of artifacts and models, in hex (contract/sha256.h is the
// digest itself): a download over plain HTTP or from a Slurm folder is checked
// all the same.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "contract/sha256.h"

namespace dlp::internal {

using contract::Sha256;

std::string Sha256Hex(std::string_view data);
// The digest of what remains to read from `fd` (read to its end).
absl::StatusOr<std::string> Sha256OfFd(int fd);
// True for 64 lowercase hex digits.
bool IsSha256Hex(std::string_view text);

}  // namespace dlp::internal
