// Whole-file replacement: the new contents, the asked mode, no temporary left.
#include "base/files/atomic_write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::base {
namespace {

TEST(WriteFileAtomicallyTest, ReplacesTheFileWithTheModeAskedWhateverTheUmask) {
  dlp::testing::TempDir dir;
  const std::string path = dir.WriteFile("token", "old");
  const mode_t old_umask = umask(0);
  ASSERT_TRUE(WriteFileAtomically(path, "new", 0600).ok());
  umask(old_umask);
  EXPECT_EQ(dlp::testing::ReadFileOrEmpty(path), "new");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(WriteFileAtomically(path, "volatile", 0644, FileSync::kVolatile).ok());
  EXPECT_EQ(dlp::testing::ReadFileOrEmpty(path), "volatile");
  // Only the file itself is left in the folder.
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename(), "token");
    ++entries;
  }
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileAtomicallyTest, AMissingFolderIsAnErrorNamingThePath) {
  dlp::testing::TempDir dir;
  const std::string path = dir.Join("no-such-folder/file");
  absl::Status written = WriteFileAtomically(path, "x");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find(path), std::string::npos) << written;
}

}  // namespace
}  // namespace dlp::base
