// The JSON job spec codec (the API's and the store's form): any text gives a
// spec or an error, never a crash; what it reads, it writes back unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dlp/codec.h"
#include "dlp/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<dlp::JobSpec> spec = dlp::JobSpecFromJson(text);
  if (!spec.ok()) return 0;
  (void)dlp::ValidateJobSpec(*spec);
  const std::string json = dlp::JobSpecToJson(*spec);
  absl::StatusOr<dlp::JobSpec> again = dlp::JobSpecFromJson(json);
  if (!again.ok() || dlp::JobSpecToJson(*again) != json) __builtin_trap();
  // A job and a job list wrap the same codec.
  (void)dlp::JobFromJson(text);
  (void)dlp::JobsFromJson(text);
  (void)dlp::EventsFromJson(text);
  return 0;
}
