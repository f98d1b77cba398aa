#include "parallel/comm_status.h"

#include "absl/strings/str_cat.h"
#include "dlp/comm.h"

namespace dlp::fmnist {

absl::Status CommStatus(const char* call, int rc) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, ": ", dlp_last_error()));
}

}  // namespace dlp::fmnist
