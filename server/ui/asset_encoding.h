// What the web UI's assets are served as: a Content-Type from the file name,
// and gzip (RFC 1952) when zlib was found at build time. Shared by dlpd and
// the build-time tool that compiles the assets into it (embed_ui_main.cc).
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace dlp::server {

// "text/html; charset=utf-8" for "index.html", ...; application/octet-stream
// for names it does not know.
absl::string_view ContentTypeFor(absl::string_view path);

// `data` compressed as a gzip member at `level` (1 fastest to 9 best);
// nullopt without zlib.
std::optional<std::string> Gzip(absl::string_view data, int level = 9);

// Whether an Accept-Encoding header lists "gzip" with a weight above zero
// (RFC 9110 12.5.3).
bool AcceptsGzip(absl::string_view accept_encoding);

}  // namespace dlp::server
