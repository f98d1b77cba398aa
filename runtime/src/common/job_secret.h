// A job's secret: 32 random bytes that dlp-run draws once per job and hands
// to its ranks (DLP_RDZV_SECRET, 64 hex digits; docs/runtime-contract.md). A
// connection to the rendezvous store or between two ranks is accepted only
// from a peer that proves it holds the same secret (peer_proof.h), so another
// user of the host can neither read nor write the job's keys nor pose as a
// rank. Copyable; immutable once made. A default-made secret is unset, and
// every handshake refuses to run with it (FailedPrecondition): there is no
// unauthenticated mode.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dlp::runtime {

// `n` bytes from the kernel's random pool (getrandom); for secrets and nonces.
absl::StatusOr<std::string> RandomBytes(size_t n);

class JobSecret {
 public:
  static constexpr size_t kBytes = 32;

  JobSecret() = default;

  // A fresh secret.
  static absl::StatusOr<JobSecret> Generate();
  // Parses 64 hex digits (either case); InvalidArgument names `origin` (the
  // variable it came from) without echoing the text.
  static absl::StatusOr<JobSecret> FromHex(absl::string_view hex, absl::string_view origin);
  // The secret in DLP_RDZV_SECRET; FailedPrecondition when it is unset.
  static absl::StatusOr<JobSecret> FromEnvironment();

  // 64 lowercase hex digits, the form DLP_RDZV_SECRET carries.
  std::string Hex() const;
  // The raw bytes: the HMAC key.
  const std::string& bytes() const { return bytes_; }
  bool set() const { return bytes_.size() == kBytes; }
  // FailedPrecondition naming DLP_RDZV_SECRET when unset.
  absl::Status CheckSet() const;

 private:
  explicit JobSecret(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string bytes_;
};

}  // namespace dlp::runtime
