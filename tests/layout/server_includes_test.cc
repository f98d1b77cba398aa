// dlpd (server/) is built on libdlp's public API (libdlp/include/dlp/), the
// contract and the base (runtime/src/contract/, base/), never on libdlp's
// private headers (CONTRIBUTING.md, "Where things live"). Its target has no
// libdlp/src/ on its include path (server/CMakeLists.txt); this names each
// include line that would need it, so that the mistake reads as a layout one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace dlp {
namespace {

namespace fs = std::filesystem;

TEST(ServerIncludes, OnlyLibdlpsPublicHeaders) {
  const fs::path source = DLP_SOURCE_DIR;
  const fs::path private_root = source / "libdlp" / "src";
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(source / "server")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cc" && ext != ".h") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string included = m[1].str();
      if (included.starts_with("libdlp/") || fs::exists(private_root / included)) {
        ADD_FAILURE() << fs::relative(entry.path(), source).string() << ":" << n << ": "
                      << line << " (a private header of libdlp: use or add a public one in "
                      << "libdlp/include/dlp/, or move what only dlpd uses into server/)";
      }
    }
  }
  EXPECT_GT(files, 100) << "no sources found below " << source / "server";
}

}  // namespace
}  // namespace dlp
