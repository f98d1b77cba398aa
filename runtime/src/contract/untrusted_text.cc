#include "contract/untrusted_text.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace dlp::contract {
namespace {

// The bytes of the well-formed UTF-8 character `text` starts with; 0 if none.
size_t Utf8Length(std::string_view text) {
  const auto c = static_cast<unsigned char>(text[0]);
  const size_t len = c < 0x80 ? 1 : c >= 0xf8 ? 0 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
  if (len == 0 || len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(text[k]) & 0xc0) != 0x80) return 0;
  }
  return len;
}

}  // namespace

std::string UntrustedText(std::string_view text, size_t max_bytes, bool multiline) {
  constexpr std::string_view kCut = "...";
  std::string out;
  size_t fits_with_cut = 0;  // the longest prefix, whole characters, that "..." may follow
  out.reserve(std::min(text.size(), max_bytes));
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::string piece;
    if ((c < 0x20 && !(multiline && (c == '\t' || c == '\n'))) || c == 0x7f) {
      piece = absl::StrFormat("\\x%02x", c);
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      piece = absl::StrFormat("\\x%02x", static_cast<unsigned char>(text[++i]));  // C1
    } else if (size_t len = Utf8Length(text.substr(i)); len > 0) {
      // A whole character at once, so that a cut never splits one.
      piece.assign(text.substr(i, len));
      i += len - 1;
    } else {
      piece = absl::StrFormat("\\x%02x", c);  // not UTF-8: a lone byte a terminal may take for C1
    }
    if (out.size() + piece.size() > max_bytes) {
      out.resize(fits_with_cut);
      return out.append(kCut.substr(0, std::min(kCut.size(), max_bytes)));
    }
    out += piece;
    if (out.size() + kCut.size() <= max_bytes) fits_with_cut = out.size();
  }
  return out;
}

}  // namespace dlp::contract
