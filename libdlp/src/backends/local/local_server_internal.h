// Finding the user's own dlpd through its state folder, and starting it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "dlp/local_server.h"
#include "http/http_client.h"

namespace dlp::internal {

struct LocalConnection {
  std::shared_ptr<const HttpClient> client;
  LocalServerInfo info;
};

// options.state_dir, else DefaultStateDir().
std::string StateDirOf(const LocalServerOptions& options);

// The dlpd recorded in the state folder, if it answers /v1/health with its token.
// NotFound/Unavailable/Unauthenticated when none answers; PermissionDenied when the
// state files are not private to this user.
absl::StatusOr<LocalConnection> ProbeLocalServer(const std::string& state_dir);

// The dlpd recorded in the state folder, found without a request: its lock is held
// and it has written its address and token. Saves the /v1/health round trip of
// ProbeLocalServer on every command; a dlpd that went away since shows up as a
// connect failure on the first request. NotFound when none is recorded.
absl::StatusOr<LocalConnection> FindLocalServer(const std::string& state_dir);

// ProbeLocalServer, else starts dlpd and waits (10 s at most) until it answers.
// Safe against other processes doing the same at once: dlpd's lock lets one win,
// and the others are found through the files it writes.
absl::StatusOr<LocalConnection> EnsureLocalServer(const LocalServerOptions& options);

}  // namespace dlp::internal
