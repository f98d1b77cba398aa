#include "server/ui/ui_assets.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/ui/asset_encoding.h"

namespace dlp::server {
namespace {

constexpr size_t kMaxDirectoryBytes = 64 << 20;

}  // namespace

UiAssets UiAssets::Embedded() {
  UiAssets assets;
  assets.assets_.assign(kEmbeddedUiAssets, kEmbeddedUiAssets + kEmbeddedUiAssetCount);
  return assets;
}

absl::StatusOr<UiAssets> UiAssets::FromDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("--ui-dir: ", dir, " is not a folder"));
  }
  std::vector<std::string> paths;
  auto storage = std::make_shared<std::vector<std::string>>();
  size_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", entry.path().string()));
    total += bytes.str().size();
    if (total > kMaxDirectoryBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ui-dir: ", dir, " holds more than ", kMaxDirectoryBytes >> 20, " MiB"));
    }
    paths.push_back("/" + fs::relative(entry.path(), dir).generic_string());
    storage->push_back(bytes.str());
    storage->push_back(Gzip(storage->back()).value_or(""));
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat("--ui-dir: ", dir, ": ", ec.message()));
  for (const std::string& path : paths) storage->push_back(path);
  UiAssets assets;
  // The vector no longer grows, so views into its strings stay valid.
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = (*storage)[2 * paths.size() + i];
    const std::string& body = (*storage)[2 * i];
    const std::string& gzip = (*storage)[2 * i + 1];
    assets.assets_.push_back({path, ContentTypeFor(path), body,
                              gzip.size() < body.size() ? absl::string_view(gzip) : ""});
  }
  assets.storage_ = std::move(storage);
  return assets;
}

const UiAsset* UiAssets::Find(absl::string_view path) const {
  for (const UiAsset& asset : assets_) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

}  // namespace dlp::server
