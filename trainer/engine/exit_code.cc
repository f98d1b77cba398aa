#include "engine/exit_code.h"

namespace dlp::fmnist {

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  switch (status.code()) {
    case absl::StatusCode::kCancelled:
      return 3;  // stopped on request (SIGUSR1) after its checkpoint: run again to go on
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
      return 2;  // fix the command line or the machine, then run again
    default:
      return 1;
  }
}

}  // namespace dlp::fmnist
