// Finding and starting the dlpd program, and watching its process.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp::internal {

// The dlpd to run: `explicit_path`, else $DLP_DLPD, else next to this program
// (/proc/self/exe), else the install bindir, else PATH. NotFound names the places
// tried.
absl::StatusOr<std::string> FindDlpd(const std::string& explicit_path);

// Starts `argv` detached: its own session, stdin from /dev/null, stdout and stderr
// appended to `log_path`, no other inherited descriptors, and not a child of this
// process (so it is never left a zombie here). Returns its pid once exec succeeded.
absl::StatusOr<int> SpawnDetached(const std::vector<std::string>& argv,
                                  const std::string& log_path);

// Whether `pid` names a live process (a zombie counts as dead).
bool ProcessAlive(int pid);

// Whether some process holds `path` with flock (dlpd.lock while dlpd runs).
bool LockHeld(const std::string& path);

// The last `max_lines` lines of `path` from byte `offset` on.
std::string FileTail(const std::string& path, long offset, int max_lines);

}  // namespace dlp::internal
