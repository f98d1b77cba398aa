// The group file (runtime/src/contract/group.h), which dlp-run reads: any text
// gives a group or an error naming the field; a group it accepts is written
// and read back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "contract/group.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<dlp::contract::Group> group = dlp::contract::ParseGroupJson(text, "group.json");
  if (!group.ok()) return 0;
  const std::string json = dlp::contract::GroupToJson(*group);
  absl::StatusOr<dlp::contract::Group> again = dlp::contract::ParseGroupJson(json, "group.json");
  if (!again.ok() || dlp::contract::GroupToJson(*again) != json) __builtin_trap();
  return 0;
}
