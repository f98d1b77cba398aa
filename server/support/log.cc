#include "server/support/log.h"

#include <cstdio>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace dlp::server {
namespace {

std::mutex& LogMutex() {
  static std::mutex mu;
  return mu;
}
FILE* log_file = nullptr;

}  // namespace

absl::Status SetLogFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "ae");
  if (f == nullptr) return absl::InternalError(absl::StrCat("cannot open log file ", path));
  std::lock_guard<std::mutex> lock(LogMutex());
  if (log_file != nullptr) std::fclose(log_file);
  log_file = f;
  return absl::OkStatus();
}

void Log(absl::string_view message) {
  std::string line = absl::StrCat(
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone()), " dlpd: ",
      message, "\n");
  std::lock_guard<std::mutex> lock(LogMutex());
  std::fputs(line.c_str(), stderr);
  if (log_file != nullptr) {
    std::fputs(line.c_str(), log_file);
    std::fflush(log_file);
  }
}

}  // namespace dlp::server
