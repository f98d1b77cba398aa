// Reading what dlpd leaves in its state folder (docs/api.md) with care: the
// token grants access to every job of the user, so dlpd.addr and dlpd.token are
// trusted only when they are regular files owned by this user and closed to
// everyone else (mode 0600).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace dlp::internal {

struct StateFiles {
  std::string address;  // "127.0.0.1:PORT"
  std::string token;
};

// NotFound when either file is missing; PermissionDenied when one is not a regular
// file owned by this user with no group/other permissions.
absl::StatusOr<StateFiles> ReadStateFiles(const std::string& state_dir);

// One such file, whitespace-trimmed.
absl::StatusOr<std::string> ReadPrivateFile(const std::string& path);

}  // namespace dlp::internal
