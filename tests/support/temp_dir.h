#pragma once

#include <string>

namespace dlp::testing {

// A fresh directory under $TMPDIR (or /tmp), removed recursively on destruction
// unless DLP_KEEP_TEST_DIRS is set.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }
  // Writes `contents` to path()/name, creating parent folders; returns the full path.
  std::string WriteFile(const std::string& name, const std::string& contents) const;

 private:
  std::string path_;
};

}  // namespace dlp::testing
