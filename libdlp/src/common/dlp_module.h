// dlp's optional shared objects (libdlp_https.so, libdlp_chart.so): parts
// that pull in large libraries (OpenSSL, Cairo) live in modules opened with
// dlopen on first use, so a `dlp` process that never needs them never loads
// them. Each exports one C entry point whose name carries its version.
#pragma once

#include "absl/status/statusor.h"

namespace dlp::internal {

// Opens `file_name` and returns its `symbol`. Looks, in order, in the library
// folder beside the running program (PREFIX/bin/dlp -> PREFIX/LIBDIR, the
// build tree alike), in the configured install folder, then on the dynamic
// linker's path. Unavailable, starting with `what` ("https:// needs dlp's TLS
// module"), when none loads or the symbol is missing. The handle stays open.
absl::StatusOr<void*> LoadModuleSymbol(const char* file_name, const char* symbol, const char* what);

}  // namespace dlp::internal
