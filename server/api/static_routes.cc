// The front end's files: `/` is index.html, /assets/* are content-hashed names
// cached for a year, and any other path outside /v1/ whose last segment has no
// dot is an SPA route (/jobs/12) answered with index.html. Compressed copies
// go out through a content provider with a length, which httplib sends as
// they are (it compresses only bodies and chunked streams itself).
#include <algorithm>

#include "absl/strings/match.h"
#include "server/api/ui_routes.h"
#include "server/ui/asset_encoding.h"
#include "server/ui/ui_assets.h"
#include "server/ui/ui_pages.h"

namespace dlp::server {
namespace {

constexpr char kHtml[] = "text/html; charset=utf-8";

void SendAsset(const httplib::Request& req, httplib::Response& res, const UiAsset& asset) {
  const bool hashed = absl::StartsWith(asset.path, "/assets/");
  res.set_header("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
  absl::string_view body = asset.body;
  if (!asset.gzip.empty()) {
    res.set_header("Vary", "Accept-Encoding");
    if (AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
      res.set_header("Content-Encoding", "gzip");
      body = asset.gzip;
    }
  }
  res.status = 200;
  res.set_content_provider(body.size(), std::string(asset.content_type).c_str(),
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body.data() + offset,
                                               std::min(length, body.size() - offset));
                           });
}

// An SPA route: no dot in the last segment, and not below /assets/.
bool IsAppRoute(absl::string_view path) {
  if (absl::StartsWith(path, "/assets/")) return false;
  const size_t slash = path.rfind('/');
  return path.substr(slash + 1).find('.') == absl::string_view::npos;
}

}  // namespace

void InstallStaticRoutes(httplib::Server& server, const ApiContext& ctx) {
  server.Get(R"(/(?!v1/).*)", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const UiAssets& assets = *ctx.ui_assets;
    const std::string path = req.path == "/" ? "/index.html" : req.path;
    if (const UiAsset* asset = assets.Find(path)) return SendAsset(req, res, *asset);
    if (IsAppRoute(req.path)) {
      if (const UiAsset* index = assets.Find("/index.html")) return SendAsset(req, res, *index);
      if (assets.empty()) {
        res.set_header("Cache-Control", "no-cache");
        return res.set_content(UiNotBuiltPage(), kHtml);
      }
    }
    res.status = 404;
    res.set_content(NotFoundPage(req.path), kHtml);
  });
}

}  // namespace dlp::server
