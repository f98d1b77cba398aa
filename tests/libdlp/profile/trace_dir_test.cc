// Reading a folder's trace files within limits: a job writes them, so a file
// too large, too many bytes in all, or a sparse file is refused, never read.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "dlp/profile.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

TEST(ReadTraceDirTest, ReadsTheTraceFilesByName) {
  testing::TempDir dir;
  dir.WriteFile("rank-1.trace.json", "[1]");
  dir.WriteFile("rank-0.trace.json", "[0]");
  dir.WriteFile("notes.txt", "not a trace");
  absl::StatusOr<std::vector<TraceFile>> files = ReadTraceDir(dir.path());
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "rank-0.trace.json");
  EXPECT_EQ((*files)[0].content, "[0]");
  EXPECT_EQ((*files)[1].content, "[1]");
}

TEST(ReadTraceDirTest, RefusesAFileOrAFolderPastTheLimits) {
  testing::TempDir dir;
  dir.WriteFile("rank-0.trace.json", std::string(600, 'a'));
  dir.WriteFile("rank-1.trace.json", std::string(600, 'b'));
  EXPECT_TRUE(ReadTraceDir(dir.path(), {.max_file_bytes = 600, .max_total_bytes = 1200}).ok());
  absl::StatusOr<std::vector<TraceFile>> one =
      ReadTraceDir(dir.path(), {.max_file_bytes = 599, .max_total_bytes = 1200});
  EXPECT_TRUE(absl::IsFailedPrecondition(one.status())) << one.status();
  EXPECT_THAT(one.status().message(), HasSubstr("rank-0.trace.json: 600 bytes"));
  absl::StatusOr<std::vector<TraceFile>> all =
      ReadTraceDir(dir.path(), {.max_file_bytes = 600, .max_total_bytes = 1000});
  EXPECT_TRUE(absl::IsFailedPrecondition(all.status())) << all.status();
  EXPECT_THAT(all.status().message(), HasSubstr("rank-1.trace.json"));
}

TEST(ReadTraceDirTest, RefusesASparseFile) {
  testing::TempDir dir;
  const std::string path = dir.WriteFile("rank-0.trace.json", "[");
  ASSERT_EQ(truncate(path.c_str(), 100 << 20), 0);  // 100 MB, no disk used
  absl::StatusOr<std::vector<TraceFile>> files = ReadTraceDir(dir.path());
  EXPECT_TRUE(absl::IsFailedPrecondition(files.status())) << files.status();
  EXPECT_THAT(files.status().message(), HasSubstr("rank-0.trace.json: a sparse file"));
}

}  // namespace
}  // namespace dlp
