// The web UI's files (the front end's web/dist): compiled into dlpd at build
// time (embed_ui_main.cc writes them into a generated source), or read from a
// folder at start with `dlpd --ui-dir` while working on the front end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dlp::server {

struct UiAsset {
  absl::string_view path;  // "/index.html", "/assets/app-3f2a9c1d.js"
  absl::string_view content_type;
  absl::string_view body;
  absl::string_view gzip;  // empty: served as is
};

class UiAssets {
 public:
  // The files compiled into this dlpd (none when it was built without the UI).
  static UiAssets Embedded();
  // Every file below `dir`, read now (at most 64 MiB in all).
  static absl::StatusOr<UiAssets> FromDirectory(const std::string& dir);

  // The file at `path` (starting with '/'), or null.
  const UiAsset* Find(absl::string_view path) const;
  bool empty() const { return assets_.empty(); }
  size_t size() const { return assets_.size(); }

 private:
  std::vector<UiAsset> assets_;
  std::shared_ptr<const std::vector<std::string>> storage_;  // FromDirectory's bytes
};

// Defined by the generated source (embed_ui_main.cc).
extern const UiAsset kEmbeddedUiAssets[];
extern const size_t kEmbeddedUiAssetCount;

}  // namespace dlp::server
