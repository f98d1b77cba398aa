#include "http/https_module.h"

#include "common/dlp_module.h"

namespace dlp::internal {

absl::StatusOr<HttpsExchangeFn> LoadHttpsModule() {
  // A function-local static: initialised once, thread-safely, on first use.
  static const absl::StatusOr<void*>* const kLoaded = new absl::StatusOr<void*>(
      LoadModuleSymbol(kHttpsModuleName, kHttpsExchangeSymbol, "https:// needs dlp's TLS module"));
  if (!kLoaded->ok()) return kLoaded->status();
  return reinterpret_cast<HttpsExchangeFn>(**kLoaded);
}

}  // namespace dlp::internal
