// Finding a program to execute: on a search path, as execvp would.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dlp::base {

// Whether `path` is a regular file this process may execute.
bool IsExecutable(const std::string& path);

// The first DIR/name, for DIR in the ':'-separated `search_path` (empty
// entries skipped), that IsExecutable; a `name` with a '/' is itself when it
// is executable. nullopt when there is none.
std::optional<std::string> FindProgram(std::string_view name, std::string_view search_path);

// The same on this process's PATH (execvp's default when PATH is unset).
std::optional<std::string> FindProgram(std::string_view name);

}  // namespace dlp::base
