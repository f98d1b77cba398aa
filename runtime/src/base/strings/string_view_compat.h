// Debian's Abseil is built with its own absl::string_view (not std's), while
// the public headers speak std::string_view. These convert at the boundary.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace dlp::base {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view ToStd(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace dlp::base
