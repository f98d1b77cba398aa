// Finding a program on a search path as execvp does.
#include "base/process/find_program.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/temp_dir.h"

namespace dlp::base {
namespace {

std::string MakeFile(const dlp::testing::TempDir& dir, const std::string& name, mode_t mode) {
  const std::string path = dir.WriteFile(name, "#!/bin/sh\n");
  chmod(path.c_str(), mode);
  return path;
}

TEST(FindProgramTest, TakesTheFirstExecutableOnThePath) {
  dlp::testing::TempDir dir;
  MakeFile(dir, "a/tool", 0644);  // not executable: passed over
  MakeFile(dir, "b/tool", 0755);
  MakeFile(dir, "c/tool", 0755);
  const std::string path = "::" + dir.Join("a") + ":" + dir.Join("b") + ":" + dir.Join("c");
  EXPECT_EQ(FindProgram("tool", path), dir.Join("b/tool"));
  EXPECT_EQ(FindProgram("missing", path), std::nullopt);
  EXPECT_EQ(FindProgram("", path), std::nullopt);
}

TEST(FindProgramTest, ANameWithASlashIsItselfAndAFolderIsNoProgram) {
  dlp::testing::TempDir dir;
  const std::string tool = MakeFile(dir, "tool", 0755);
  EXPECT_EQ(FindProgram(tool, ""), tool);
  EXPECT_EQ(FindProgram(dir.Join("missing"), "/bin"), std::nullopt);
  EXPECT_FALSE(IsExecutable(dir.path()));  // a folder has X_OK too
  EXPECT_TRUE(IsExecutable(tool));
  EXPECT_FALSE(IsExecutable(MakeFile(dir, "data", 0644)));
}

TEST(FindProgramTest, UsesThisProcesssPath) {
  // sh is on every PATH a test runs with.
  std::optional<std::string> sh = FindProgram("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_TRUE(IsExecutable(*sh));
}

}  // namespace
}  // namespace dlp::base
