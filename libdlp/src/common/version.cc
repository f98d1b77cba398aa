#include "dlp/version.h"

#include "dlp_build_config.h"

namespace dlp {
const char* Version() { return DLP_VERSION_STRING; }
}  // namespace dlp
