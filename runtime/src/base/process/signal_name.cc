#include "base/process/signal_name.h"

#include <string.h>

#include "absl/strings/str_cat.h"

namespace dlp::base {

std::string SignalName(int signo) {
  const char* abbrev = sigabbrev_np(signo);
  if (abbrev == nullptr) return absl::StrCat("signal ", signo);
  return absl::StrCat("SIG", abbrev);
}

}  // namespace dlp::base
