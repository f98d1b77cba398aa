// Managing the user's own dlpd (the local backend): `dlp server start|stop|status`.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace dlp {

struct LocalServerInfo {
  bool running = false;
  std::string address;  // "127.0.0.1:PORT"
  int pid = 0;
  std::string version;
  std::string state_dir;
};

struct LocalServerOptions {
  std::string state_dir;    // empty: DefaultStateDir()
  std::string dlpd_path;    // empty: $DLP_DLPD, next to this program, install bindir, PATH
  std::string listen = "127.0.0.1:0";
};

// Starts dlpd unless one already answers; returns once it accepts requests.
absl::StatusOr<LocalServerInfo> StartLocalServer(const LocalServerOptions& options = {});
// Asks dlpd to stop and waits for it to exit. Jobs keep running and are adopted
// by the next dlpd. OK when none was running.
absl::Status StopLocalServer(const LocalServerOptions& options = {});
absl::StatusOr<LocalServerInfo> LocalServerStatus(const LocalServerOptions& options = {});

}  // namespace dlp
