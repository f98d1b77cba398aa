// The HTTPS half of the HTTP client lives in its own shared object,
// libdlp_https.so (cpp-httplib with OpenSSL), installed next to libdlp and opened
// with dlopen the first time a process sends a request to an https:// URL. Linking
// it instead would make every `dlp` process load and initialise libssl and
// libcrypto: about half of what a local `dlp submit` costs.
#pragma once

#include "absl/status/statusor.h"
#include "http/exchange.h"

namespace dlp::internal {

// The module's file name.
inline constexpr char kHttpsModuleName[] = "libdlp_https.so";

// Loads the module once per process and returns its entry point; later calls
// return the same. Thread-safe. Looks, in order, in the library folder beside the
// running program (PREFIX/bin/dlp -> PREFIX/LIBDIR, the build tree alike), in the
// configured install folder, then on the dynamic linker's path (the program's
// RUNPATH, LD_LIBRARY_PATH). Unavailable, naming the places, when none loads.
absl::StatusOr<HttpsExchangeFn> LoadHttpsModule();

}  // namespace dlp::internal
