#include "status_error.h"

#include "dlp/exit_code.h"

namespace dlp::python {

StatusError::StatusError(absl::Status status)
    : status_(std::move(status)),
      message_(status_.message()),
      exit_code_(static_cast<int>(ExitCodeForStatus(status_))) {}

std::string StatusError::code_name() const {
  return absl::StatusCodeToString(status_.code());
}

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

}  // namespace dlp::python
