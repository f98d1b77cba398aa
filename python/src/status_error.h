// A failed dlp::Client call on its way to Python: the status, and the exit
// code the `dlp` command would give for it (ExitCodeForStatus, the one
// mapping), from which python/dlp/errors.py picks the exception class.
#pragma once

#include <exception>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dlp::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status);
  const char* what() const noexcept override { return message_.c_str(); }
  const absl::Status& status() const { return status_; }
  int exit_code() const { return exit_code_; }
  // "NOT_FOUND", "INVALID_ARGUMENT", ... (absl::StatusCodeToString).
  std::string code_name() const;

 private:
  absl::Status status_;
  std::string message_;
  int exit_code_;
};

// Throws StatusError unless `status` is OK.
void ThrowIfError(const absl::Status& status);

template <typename T>
T ValueOrThrow(absl::StatusOr<T> result) {
  ThrowIfError(result.status());
  return *std::move(result);
}

}  // namespace dlp::python
