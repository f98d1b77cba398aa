// The status file (runtime/src/contract/status.h), which a job can write
// whatever it likes into and dlpd reads as root: any text gives a status or an
// error naming the field, and a status it accepts carries no control
// character and no over-long string towards the API and terminals.
#include <cstddef>
#include <cstdint>
#include <string>

#include "contract/status.h"

namespace {

bool Clean(const std::string& text, size_t cap) {
  if (text.size() > cap) return false;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return text.find("\xc2\x9b") == std::string::npos;  // CSI, the C1 control
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<dlp::contract::GroupStatus> status =
      dlp::contract::ParseStatusJson(text, "status.json");
  if (!status.ok()) return 0;
  if (!Clean(status->state, 256) || !Clean(status->reason, 2048)) __builtin_trap();
  for (const dlp::contract::RankStatus& r : status->replicas) {
    if (!Clean(r.name, 256) || !Clean(r.role, 256) || !Clean(r.host, 256) ||
        !Clean(r.state, 256) || !Clean(r.reason, 2048)) {
      __builtin_trap();
    }
  }
  return 0;
}
