#include "server/ui/asset_encoding.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "dlp_build_config.h"

#if DLP_HAVE_ZLIB
#include <zlib.h>
#endif

namespace dlp::server {

absl::string_view ContentTypeFor(absl::string_view path) {
  struct Type {
    absl::string_view suffix, type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const Type& t : kTypes) {
    if (absl::EndsWith(path, t.suffix)) return t.type;
  }
  return "application/octet-stream";
}

std::optional<std::string> Gzip(absl::string_view data, int level) {
#if DLP_HAVE_ZLIB
  z_stream stream = {};
  // 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  return out;
#else
  (void)data;
  (void)level;
  return std::nullopt;
#endif
}

bool AcceptsGzip(absl::string_view accept_encoding) {
  for (absl::string_view item : absl::StrSplit(accept_encoding, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, ';');
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(parts[0]), "gzip")) continue;
    double weight = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
      absl::string_view param = absl::StripAsciiWhitespace(parts[i]);
      if (absl::ConsumePrefix(&param, "q=") && !absl::SimpleAtod(param, &weight)) weight = 0;
    }
    return weight > 0;
  }
  return false;
}

}  // namespace dlp::server
