// The status file's one codec and its atomic writer.
#include "contract/status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

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

TEST(StatusCodec, AReasonThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  GroupStatus s = Sample();
  s.replicas[2].reason = "could not start: cannot execute /tmp/x\xff\xfe: No such file";
  std::string text;
  ASSERT_NO_THROW(text = StatusToJson(s));
  auto back = ParseStatusJson(text, "s.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->replicas[2].reason,
            "could not start: cannot execute /tmp/x\uFFFD\uFFFD: No such file");
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

// The job's account owns the folder the status file is in: dlpd reads only a
// regular file, not through a link, and not without bound.
TEST(StatusFile, ReadsOnlyABoundedRegularFileNotALink) {
  testing::TempDir dir;
  const std::string valid = StatusToJson(Sample());
  dir.WriteFile("elsewhere.json", valid);
  ASSERT_EQ(symlink(dir.Join("elsewhere.json").c_str(), dir.Join("link.json").c_str()), 0);
  auto link = ReadStatusFile(dir.Join("link.json"));
  EXPECT_FALSE(link.ok()) << "read through a link";

  // A FIFO would block the reader until someone writes to it; it is refused
  // without being opened for reading. (The writer below unblocks a reader that
  // did open it, so that this test fails rather than hangs.)
  const std::string fifo = dir.Join("fifo.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread unblock([&fifo] {
    const int fd = open(fifo.c_str(), O_WRONLY);  // waits for a reader, if any ever comes
    if (fd >= 0) close(fd);
  });
  auto from_fifo = ReadStatusFile(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_THAT(std::string(from_fifo.status().message()), HasSubstr("cannot read"));
  // Release the helper thread: open the FIFO for reading once, without blocking.
  const int release = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  unblock.join();
  if (release >= 0) close(release);

  // Valid JSON, but padded past the bound.
  dir.WriteFile("huge.json", std::string(kMaxStatusFileBytes, ' ') + valid);
  auto huge = ReadStatusFile(dir.Join("huge.json"));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(std::string(huge.status().message()), HasSubstr("larger than 4 MiB"));
  dir.WriteFile("padded.json", std::string(1 << 20, ' ') + valid);
  auto padded = ReadStatusFile(dir.Join("padded.json"));
  ASSERT_TRUE(padded.ok() && padded->has_value()) << padded.status();
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
