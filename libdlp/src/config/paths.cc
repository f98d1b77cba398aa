#include "config/paths.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/files/atomic_write.h"
#include "contract/files.h"

namespace dlp::internal {

std::string HomeDir() {
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return home;
  struct passwd* pw = getpwuid(getuid());
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "/";
}

std::string ExpandUser(std::string_view path) {
  if (path == "~") return HomeDir();
  if (path.size() >= 2 && path[0] == '~' && path[1] == '/') {
    return absl::StrCat(HomeDir(), std::string(path.substr(1)));
  }
  return std::string(path);
}

absl::Status MakeDirs(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(path, ": exists and is not a folder"));
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    if (auto status = MakeDirs(path.substr(0, slash)); !status.ok()) return status;
  }
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create folder ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status WriteFileInNewDirs(const std::string& path, std::string_view contents, int mode) {
  const size_t slash = path.find_last_of('/');
  if (auto status = MakeDirs(slash == std::string::npos ? "." : path.substr(0, slash));
      !status.ok()) {
    return status;
  }
  return base::WriteFileAtomically(path, contents, mode);
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace dlp::internal
