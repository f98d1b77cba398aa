#include "common/job_secret.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/socket.h"
#include "contract/env_names.h"
#include "dlp/status.h"

namespace dlp::runtime {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("getrandom", errno);
    }
    got += static_cast<size_t>(r);
  }
  return out;
}

absl::StatusOr<JobSecret> JobSecret::Generate() {
  DLP_ASSIGN_OR_RETURN(std::string bytes, RandomBytes(kBytes));
  return JobSecret(std::move(bytes));
}

absl::StatusOr<JobSecret> JobSecret::FromHex(absl::string_view hex, absl::string_view origin) {
  if (hex.size() != 2 * kBytes) {
    return absl::InvalidArgumentError(absl::StrCat(origin, " must be ", 2 * kBytes,
                                                   " hex digits, not ", hex.size(), " characters"));
  }
  std::string bytes(kBytes, '\0');
  for (size_t i = 0; i < kBytes; ++i) {
    int hi = HexDigit(hex[2 * i]), lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return absl::InvalidArgumentError(absl::StrCat(origin, " must be hex digits only"));
    }
    bytes[i] = static_cast<char>(hi << 4 | lo);
  }
  return JobSecret(std::move(bytes));
}

absl::StatusOr<JobSecret> JobSecret::FromEnvironment() {
  const char* hex = std::getenv(contract::env::kRdzvSecret);
  if (hex == nullptr || *hex == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(
        contract::env::kRdzvSecret,
        " is not set: the rendezvous store and the other ranks accept only ranks that hold the "
        "job's secret (start the ranks with dlp-run)"));
  }
  return FromHex(hex, contract::env::kRdzvSecret);
}

absl::Status JobSecret::CheckSet() const {
  if (set()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "no job secret (", contract::env::kRdzvSecret,
      "): the rendezvous store and the links between ranks accept only its holders"));
}

std::string JobSecret::Hex() const { return absl::BytesToHexString(bytes_); }

}  // namespace dlp::runtime
