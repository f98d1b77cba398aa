// Reading files a job's user owns without following its links.
#include "contract/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

TEST(ReadFileNoFollowTest, ReadsARegularFileFromAnOffset) {
  dlp::testing::TempDir dir;
  dir.WriteFile("logs/a.log", "hello world");
  absl::StatusOr<std::string> all = ReadFileNoFollow(dir.Join("logs"), "a.log");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, "hello world");
  EXPECT_EQ(*ReadFileNoFollow(dir.Join("logs"), "a.log", 6), "world");
  EXPECT_EQ(*ReadFileNoFollow(dir.Join("logs"), "a.log", 100), "");
  EXPECT_TRUE(absl::IsNotFound(ReadFileNoFollow(dir.Join("logs"), "b.log").status()));
}

TEST(ReadFileIfExistsTest, ReadsTheWholeFileOrSaysItIsMissing) {
  dlp::testing::TempDir dir;
  const std::string big(200'000, 'x');  // more than one read's buffer
  dir.WriteFile("big", big);
  absl::StatusOr<std::optional<std::string>> read = ReadFileIfExists(dir.Join("big"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, big);
  dir.WriteFile("empty", "");
  EXPECT_EQ(*ReadFileIfExists(dir.Join("empty")), "");
  EXPECT_EQ(*ReadFileIfExists(dir.Join("missing")), std::nullopt);
  // A folder is not a missing file: an error that names it.
  read = ReadFileIfExists(dir.Join("."));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(dir.Join(".")), std::string::npos) << read.status();
}

TEST(ReadFileNoFollowTest, RefusesLinksAndSpecialFiles) {
  dlp::testing::TempDir dir;
  const std::string secret = dir.WriteFile("secret", "token");
  dir.WriteFile("logs/a.log", "ok");
  ASSERT_EQ(symlink(secret.c_str(), dir.Join("logs/link.log").c_str()), 0);
  ASSERT_EQ(symlink(dir.Join("logs").c_str(), dir.Join("linked-logs").c_str()), 0);
  ASSERT_EQ(mkfifo(dir.Join("logs/fifo.log").c_str(), 0600), 0);
  for (const auto& [folder, name] :
       std::vector<std::pair<std::string, std::string>>{{dir.Join("logs"), "link.log"},
                                                        {dir.Join("linked-logs"), "a.log"},
                                                        {dir.Join("logs"), "fifo.log"}}) {
    absl::StatusOr<std::string> read = ReadFileNoFollow(folder, name);
    EXPECT_FALSE(read.ok()) << folder << "/" << name;
    EXPECT_TRUE(absl::IsPermissionDenied(read.status())) << read.status();
  }
}

}  // namespace
}  // namespace dlp::contract
