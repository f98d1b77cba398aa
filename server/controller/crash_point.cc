#include "server/controller/crash_point.h"

#include <signal.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/support/log.h"

namespace dlp::server {

void CrashPointForTests(const char* point) {
  static const std::string wanted = [] {
    const char* value = std::getenv("DLPD_TEST_CRASH_AT");
    return std::string(value == nullptr ? "" : value);
  }();
  if (wanted != point) return;
  Log(absl::StrCat("DLPD_TEST_CRASH_AT=", point, ": killing dlpd"));
  raise(SIGKILL);
}

}  // namespace dlp::server
