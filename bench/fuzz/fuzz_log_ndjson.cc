// The client's reader of dlpd's NDJSON log stream (backends/api): any line
// gives a log line or an error, never an exception or a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/api/api_backend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    (void)dlp::internal::ParseNdjsonLogLine(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return 0;
}
