// Reading files a job's user owns without following its links.
#include "contract/files.h"

#include <fcntl.h>
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

// A file of `size` bytes with `data` at its start and a hole after it.
void MakeSparse(const std::string& path, const std::string& data, off_t size) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(ftruncate(fd, size), 0);
  close(fd);
}

bool SparseAt(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  const bool sparse = fd >= 0 && fstat(fd, &st) == 0 && IsSparse(fd, st);
  if (fd >= 0) close(fd);
  return sparse;
}

TEST(IsSparseTest, AHoleIsSparseWrittenBytesAreNot) {
  dlp::testing::TempDir dir;
  MakeSparse(dir.Join("holes"), "x\n", 100 << 20);
  EXPECT_TRUE(SparseAt(dir.Join("holes")));
  dir.WriteFile("dense", std::string(4 << 20, 'y'));
  EXPECT_FALSE(SparseAt(dir.Join("dense")));
  dir.WriteFile("small", "z");  // may take no block at all on some file systems
  EXPECT_FALSE(SparseAt(dir.Join("small")));
}

}  // namespace
}  // namespace dlp::contract
