#include "base/process/find_program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dlp::base {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> FindProgram(std::string_view name, std::string_view search_path) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::string path(name);
    if (IsExecutable(path)) return path;
    return std::nullopt;
  }
  for (absl::string_view dir :
       absl::StrSplit(absl::string_view(search_path.data(), search_path.size()), ':',
                      absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", absl::string_view(name.data(), name.size()));
    if (IsExecutable(candidate)) return candidate;
  }
  return std::nullopt;
}

std::optional<std::string> FindProgram(std::string_view name) {
  const char* path = std::getenv("PATH");
  return FindProgram(name, path != nullptr ? path : "/bin:/usr/bin");
}

}  // namespace dlp::base
