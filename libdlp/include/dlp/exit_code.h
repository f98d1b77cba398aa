// The exit codes of every dlp command, derived in one place (documented in dlp(1)).
#pragma once

#include "absl/status/status.h"
#include "dlp/job.h"

namespace dlp {

enum class ExitCode : int {
  kSuccess = 0,
  kJobFailed = 1,
  kUsage = 2,     // bad flags or an invalid spec
  kNotFound = 3,  // no such job
  kBackend = 4,   // backend unreachable or internal error
  kCancelled = 5,
  kDenied = 6,  // the token may not do this (HTTP 403)
  kInterrupted = 130,
};

// InvalidArgument/OutOfRange/FailedPrecondition/AlreadyExists -> kUsage, NotFound -> kNotFound,
// PermissionDenied -> kDenied, Cancelled -> kInterrupted, anything else -> kBackend.
ExitCode ExitCodeForStatus(const absl::Status& status);
// Succeeded -> kSuccess, Failed -> kJobFailed, Cancelled -> kCancelled;
// a job not yet terminal -> kBackend.
ExitCode ExitCodeForJob(const Job& job);

}  // namespace dlp
