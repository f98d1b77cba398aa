// Small filesystem helpers shared by contexts and the backends.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace dlp::internal {

// $HOME, else the password database entry of the current user.
std::string HomeDir();

// "~/x" -> "$HOME/x"; anything else unchanged.
std::string ExpandUser(std::string_view path);

// Creates `path` and its parents (mode 0700 for the ones it creates).
absl::Status MakeDirs(const std::string& path);

// Writes `contents` to `path` atomically (base::WriteFileAtomically) after
// creating its folder with MakeDirs.
absl::Status WriteFileInNewDirs(const std::string& path, std::string_view contents, int mode);

absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace dlp::internal
