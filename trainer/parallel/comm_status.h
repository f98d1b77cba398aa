// A dlp_* call's result as a Status: every call of dlp/comm.h returns 0 or a
// status code, and dlp_last_error() says why.
#pragma once

#include "dlp/status.h"

namespace dlp::fmnist {

// OK for 0; otherwise Internal, naming `call` and dlp_last_error().
absl::Status CommStatus(const char* call, int rc);

}  // namespace dlp::fmnist
