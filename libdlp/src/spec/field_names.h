// The field names of the spec's maps that its YAML form (spec/decoder.cc) and
// its JSON form (codec/codec_spec.cc) share. Each decoder refuses any other
// name with the field's path, so a misspelt field is an error, not a default.
#pragma once

#include "absl/strings/string_view.h"

namespace dlp::internal {

inline constexpr absl::string_view kResourceFields[] = {"cpu", "memory", "gpu", "gpuType"};
inline constexpr absl::string_view kRestartFields[] = {"policy", "maxRestarts", "backoffSeconds"};
inline constexpr absl::string_view kLogsFields[] = {"maxBytes"};
inline constexpr absl::string_view kTracingNames[] = {"sampled", "full", "off"};
inline constexpr absl::string_view kPreemptionFields[] = {"gracePeriodSeconds"};
inline constexpr absl::string_view kDependencyFields[] = {"job", "condition"};
inline constexpr absl::string_view kSuccessPolicyFields[] = {"roles"};

}  // namespace dlp::internal
