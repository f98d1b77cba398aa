// Shared mode: dlpd accepts tenants' tokens and runs each tenant's jobs as the
// tenant's Unix account. What it checks before it does so.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace dlp::server {

// Mode of the state folder in shared mode: the tenants' jobs reach their own
// folders in STATE/jobs, but cannot list it or read dlpd's files (all 0600).
inline constexpr int kSharedStateDirMode = 0711;

// OK when dlpd may serve tenants: it holds the privilege to run their jobs as
// their accounts (CheckRunAsPrivilege) and every folder above `state_dir` is
// searchable by other users. FailedPrecondition saying what is missing.
absl::Status CheckSharedMode(const std::string& state_dir);

}  // namespace dlp::server
