// The status file's one codec and its atomic writer.
#include "contract/status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

using ::testing::HasSubstr;

GroupStatus Sample() {
  GroupStatus s;
  s.pid = 4242;
  s.state = std::string(kFailed);
  s.restarts = 2;
  s.reason = "rank 1 (worker-1) on host a exited with code 3";
  RankStatus a{"worker-0", "worker", 0, 0, "a", 4250, 4250, std::string(kFailed), {}, 15};
  RankStatus b{"worker-1", "worker", 1, 1, "b", 4251, 4251, std::string(kFailed), 3, {}};
  RankStatus c{"worker-2", "worker", 2, 2, "b", 0, 0, std::string(kFailed), 127, {},
               "could not start: cannot execute x: No such file or directory"};
  s.replicas = {a, b, c};
  return s;
}

TEST(StatusCodec, RoundTrips) {
  const std::string text = StatusToJson(Sample());
  EXPECT_THAT(text, HasSubstr("\"exitCode\": null"));
  // Only a replica with something to say beyond its exit has a reason.
  size_t reasons = 0;
  for (size_t at = text.find("\"reason\""); at != std::string::npos;
       at = text.find("\"reason\"", at + 1)) {
    ++reasons;
  }
  EXPECT_EQ(reasons, 2u) << text;  // the group's and worker-2's
  auto back = ParseStatusJson(text, "s.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Sample());
  EXPECT_TRUE(back->terminal());
}

TEST(StatusCodec, ErrorsNameTheFileAndTheField) {
  auto bad = ParseStatusJson(R"({"state": "Running", "replicas": [{"pid": "x"}]})", "s.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("s.json: replicas[0].pid:"));
  auto restarts = ParseStatusJson(R"({"restarts": 1.5})", "s.json");
  EXPECT_THAT(std::string(restarts.status().message()), HasSubstr("s.json: restarts:"));
  auto broken = ParseStatusJson("{", "s.json");
  EXPECT_THAT(std::string(broken.status().message()), HasSubstr("s.json: invalid JSON"));
}

TEST(StatusFile, AbsentIsNulloptAndWritesAreAtomicAndDeduplicated) {
  testing::TempDir dir;
  const std::string path = dir.Join("status.json");
  auto none = ReadStatusFile(path);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());

  StatusFileWriter writer(path);
  ASSERT_TRUE(writer.Write(Sample()).ok());
  auto read = ReadStatusFile(path);
  ASSERT_TRUE(read.ok() && read->has_value()) << read.status();
  EXPECT_EQ(**read, Sample());
  // An unchanged document is not rewritten: the file keeps its inode.
  struct stat before, after;
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  ASSERT_TRUE(writer.Write(Sample()).ok());
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  GroupStatus changed = Sample();
  changed.restarts = 3;
  ASSERT_TRUE(writer.Write(changed).ok());
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);  // a new file renamed over the old one

  dir.WriteFile("garbage.json", "{\"state\": 3}");
  auto garbage = ReadStatusFile(dir.Join("garbage.json"));
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(std::string(garbage.status().message()), HasSubstr("garbage.json: state:"));
}

TEST(StatusFile, PrivateWhateverTheUmask) {
  testing::TempDir dir;
  const mode_t old = umask(0);
  absl::Status written = StatusFileWriter(dir.Join("status.json")).Write(Sample());
  umask(old);
  ASSERT_TRUE(written.ok()) << written;
  struct stat st;
  ASSERT_EQ(stat(dir.Join("status.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

}  // namespace
}  // namespace dlp::contract
