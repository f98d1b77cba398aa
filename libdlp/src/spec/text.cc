#include "spec/text.h"

#include "absl/strings/str_format.h"

namespace dlp::internal {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the valid UTF-8 sequence at `i`, or 0 (RFC 3629, table 3-7 of
// the Unicode standard: no overlong forms, no surrogates, <= U+10FFFF).
size_t SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (!IsContinuation(byte(i + k))) return 0;
  }
  return n;
}

}  // namespace

std::optional<TextFault> FindTextFault(absl::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\0') return TextFault{i, "a NUL byte"};
    const size_t n = SequenceLength(text, i);
    if (n == 0) {
      return TextFault{i,
                       absl::StrFormat("invalid UTF-8 (byte 0x%02x)",
                                       static_cast<unsigned>(static_cast<unsigned char>(text[i])))};
    }
    i += n;
  }
  return std::nullopt;
}

TextPosition PositionOf(absl::string_view text, size_t offset) {
  TextPosition p;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 0;
    } else if (!IsContinuation(static_cast<unsigned char>(text[i]))) {
      ++p.column;
    }
  }
  return p;
}

}  // namespace dlp::internal
