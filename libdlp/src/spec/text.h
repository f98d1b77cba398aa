// What text a spec may hold: UTF-8 without NUL. A NUL would cut an argument or
// a value short where it reaches execve; invalid UTF-8 would be replaced
// (U+FFFD) by the YAML and JSON libraries. Both are refused, never changed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace dlp::internal {

struct TextFault {
  size_t offset = 0;  // of the offending byte
  std::string what;   // "a NUL byte", "invalid UTF-8 (byte 0xff)"
};

// The first NUL or invalid UTF-8 sequence (overlong forms, surrogates and code
// points past U+10FFFF included) in `text`; nullopt when there is none.
std::optional<TextFault> FindTextFault(absl::string_view text);

// 0-based line and column (in code points, as yaml-cpp counts) of `offset`.
struct TextPosition {
  int line = 0;
  int column = 0;
};
TextPosition PositionOf(absl::string_view text, size_t offset);

}  // namespace dlp::internal
