// dlpd's own log: timestamped lines to stderr and, when set, a file.
// Thread-safe.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace dlp::server {

// Appends to `path` from now on (in addition to stderr).
absl::Status SetLogFile(const std::string& path);
void Log(absl::string_view message);

}  // namespace dlp::server
