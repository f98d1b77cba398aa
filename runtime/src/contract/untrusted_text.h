// Text a job wrote (its status file's reasons and hosts, names it chose) on its
// way to dlpd's API, the web UI and a terminal: capped in length, and with
// every control character escaped, so that it can neither flood a page nor
// send a terminal an escape sequence (OSC 52 writes the clipboard on some).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dlp::contract {

// `text` with C0 controls (but tab and newline when `multiline`), DEL and C1
// controls (U+0080-U+009F) written as \xNN, cut to at most `max_bytes` bytes
// on a character boundary, "..." marking a cut.
std::string UntrustedText(std::string_view text, size_t max_bytes, bool multiline = false);

}  // namespace dlp::contract
