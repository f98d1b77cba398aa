#include "common/dlp_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp_build_config.h"

namespace dlp::internal {
namespace {

// The prefix of the running program ("/usr/local" for /usr/local/bin/dlp); empty
// when unknown.
std::string ProgramPrefix() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "";
  std::string prefix(path, static_cast<size_t>(n));
  for (int level = 0; level < 2; ++level) {  // drop the program's name, then bin
    const size_t slash = prefix.rfind('/');
    if (slash == std::string::npos) return "";
    prefix.resize(slash);
  }
  return prefix;
}

std::vector<std::string> Candidates(const char* file_name) {
  std::vector<std::string> paths;
  const std::string libdir = DLP_INSTALL_LIBDIR;
  if (!libdir.empty() && libdir[0] != '/') {
    if (const std::string prefix = ProgramPrefix(); !prefix.empty()) {
      paths.push_back(absl::StrCat(prefix, "/", libdir, "/", file_name));
    }
  }
  paths.push_back(absl::StrCat(DLP_INSTALL_FULL_LIBDIR, "/", file_name));
  paths.push_back(file_name);  // no slash: the dynamic linker's search
  return paths;
}

}  // namespace

absl::StatusOr<void*> LoadModuleSymbol(const char* file_name, const char* symbol,
                                       const char* what) {
  std::vector<std::string> tried;
  std::string why;
  for (const std::string& path : Candidates(file_name)) {
    // RTLD_LOCAL: the module's libraries' symbols stay out of the global scope.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      why = error != nullptr ? error : "unknown error";
      // A module that is there but does not load (its libraries are missing) is
      // the one to report, not the places searched after it.
      if (path.find('/') != std::string::npos && access(path.c_str(), F_OK) == 0) {
        return absl::UnavailableError(
            absl::StrCat(what, " ", path, ", which cannot be loaded: ", why));
      }
      tried.push_back(path);
      continue;
    }
    // The handle stays open for the life of the process, as a linked library would.
    void* fn = dlsym(handle, symbol);
    if (fn == nullptr) {
      return absl::UnavailableError(
          absl::StrCat(path, " lacks ", symbol, " (it belongs to another version of dlp)"));
    }
    return fn;
  }
  return absl::UnavailableError(absl::StrCat(what, ", which cannot be loaded (tried ",
                                             absl::StrJoin(tried, ", "), "): ", why));
}

}  // namespace dlp::internal
