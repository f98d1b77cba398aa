// The one mapping from outcomes to the CLI's exit codes (dlp(1), EXIT STATUS).
#include "dlp/exit_code.h"

namespace dlp {

ExitCode ExitCodeForStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return ExitCode::kSuccess;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
      return ExitCode::kUsage;
    case absl::StatusCode::kNotFound:
      return ExitCode::kNotFound;
    case absl::StatusCode::kPermissionDenied:
      return ExitCode::kDenied;
    case absl::StatusCode::kCancelled:
      return ExitCode::kInterrupted;
    default:
      return ExitCode::kBackend;
  }
}

ExitCode ExitCodeForJob(const Job& job) {
  switch (job.state) {
    case JobState::kSucceeded:
      return ExitCode::kSuccess;
    case JobState::kFailed:
      return ExitCode::kJobFailed;
    case JobState::kCancelled:
      return ExitCode::kCancelled;
    default:
      return ExitCode::kBackend;
  }
}

}  // namespace dlp
