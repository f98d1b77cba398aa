// The YAML job spec reader (libdlp/src/spec): any text gives a spec or an
// InvalidArgument, never a crash; and a spec it accepts survives its own
// YAML rendering (codec) and re-reading unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dlp/codec.h"
#include "dlp/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<dlp::JobSpec> spec = dlp::ParseJobSpec(text, "/fuzz/job.yaml");
  if (!spec.ok()) return 0;
  // The stored form (JSON) reads back to what was stored.
  const std::string json = dlp::JobSpecToJson(*spec);
  absl::StatusOr<dlp::JobSpec> again = dlp::JobSpecFromJson(json);
  if (!again.ok() || dlp::JobSpecToJson(*again) != json) __builtin_trap();
  return 0;
}
