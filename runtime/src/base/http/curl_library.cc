#include "base/http/curl_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace dlp::base {
namespace {

constexpr char kSoname[] = "libcurl.so.4";

template <typename Fn>
bool Bind(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return fn != nullptr;
}

absl::StatusOr<CurlLibrary> Open() {
  // RTLD_LOCAL: libcurl's symbols stay out of the global scope the rest of dlp uses.
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(absl::StrCat(
        "the Slurm REST transport and the Kubernetes backend need ", kSoname,
        ", which cannot be loaded: ", why != nullptr ? why : "unknown error",
        " (install libcurl4; Slurm contexts can use transport: cli)"));
  }
  CurlLibrary curl{};
  CURLcode (*global_init)(long) = nullptr;
  const char* missing = nullptr;
  if (!Bind(handle, "curl_global_init", global_init)) missing = "curl_global_init";
  if (!Bind(handle, "curl_easy_init", curl.easy_init)) missing = "curl_easy_init";
  if (!Bind(handle, "curl_easy_setopt", curl.easy_setopt)) missing = "curl_easy_setopt";
  if (!Bind(handle, "curl_easy_perform", curl.easy_perform)) missing = "curl_easy_perform";
  if (!Bind(handle, "curl_easy_getinfo", curl.easy_getinfo)) missing = "curl_easy_getinfo";
  if (!Bind(handle, "curl_easy_cleanup", curl.easy_cleanup)) missing = "curl_easy_cleanup";
  if (!Bind(handle, "curl_easy_strerror", curl.easy_strerror)) missing = "curl_easy_strerror";
  if (!Bind(handle, "curl_slist_append", curl.slist_append)) missing = "curl_slist_append";
  if (!Bind(handle, "curl_slist_free_all", curl.slist_free_all)) missing = "curl_slist_free_all";
  if (missing != nullptr) {
    return absl::UnavailableError(absl::StrCat(kSoname, " lacks ", missing));
  }
  // The handle stays open for the life of the process, as a linked libcurl would.
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return absl::UnavailableError("curl_global_init failed");
  }
  return curl;
}

}  // namespace

absl::StatusOr<const CurlLibrary*> LoadCurl() {
  // A function-local static: initialised once, thread-safely, on first use.
  static const absl::StatusOr<CurlLibrary>* const kLoaded =
      new absl::StatusOr<CurlLibrary>(Open());
  if (!kLoaded->ok()) return kLoaded->status();
  return &**kLoaded;
}

}  // namespace dlp::base
