// A job's folder read as a hostile job would lay it out: links at every
// level, a FIFO, paths that climb out, hard links to another user's files.
#include "contract/tenant_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

using OpenFn = absl::StatusOr<OwnedFd> (*)(int, std::string_view, int);

// Both resolvers: openat2, and the component walk kernels before 5.6 get.
class OpenBeneathTest : public ::testing::TestWithParam<OpenFn> {
 protected:
  void SetUp() override {
    secret_ = dir_.WriteFile("secret", "the owner's token");
    dir_.WriteFile("jobs/7/output/model.bin", "weights");
    dir_.WriteFile("jobs/7/output/sub/log.txt", "log");
    root_ = OwnedFd(open(dir_.Join("jobs/7").c_str(), O_RDONLY | O_DIRECTORY));
    ASSERT_TRUE(root_);
  }

  absl::StatusOr<std::string> Read(std::string_view path) {
    absl::StatusOr<OwnedFd> fd = GetParam()(root_.get(), path, O_RDONLY);
    if (!fd.ok()) return fd.status();
    char buf[256];
    const ssize_t n = read(fd->get(), buf, sizeof(buf));
    return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
  }

  dlp::testing::TempDir dir_;
  std::string secret_;
  OwnedFd root_;
};

TEST_P(OpenBeneathTest, OpensFilesBelowTheFolder) {
  EXPECT_EQ(*Read("output/model.bin"), "weights");
  EXPECT_EQ(*Read("output/sub/log.txt"), "log");
  EXPECT_TRUE(absl::IsNotFound(Read("output/missing").status()));
}

TEST_P(OpenBeneathTest, FollowsNoLinkAtAnyLevel) {
  ASSERT_EQ(symlink(secret_.c_str(), dir_.Join("jobs/7/output/last").c_str()), 0);
  ASSERT_EQ(symlink(dir_.path().c_str(), dir_.Join("jobs/7/output/up").c_str()), 0);
  ASSERT_EQ(symlink("../..", dir_.Join("jobs/7/output/rel").c_str()), 0);
  ASSERT_EQ(symlink("/proc/self/cwd", dir_.Join("jobs/7/output/magic").c_str()), 0);
  for (const char* path : {"output/last", "output/up/secret", "output/rel/secret",
                           "output/magic/secret"}) {
    absl::StatusOr<std::string> read = Read(path);
    EXPECT_FALSE(read.ok()) << path << " read " << *read;
  }
}

TEST_P(OpenBeneathTest, RefusesPathsThatClimbOutOrAreMalformed) {
  for (const char* path : {"../secret", "output/../../secret", "/etc/passwd", "", "output//x",
                           "./output/model.bin", "output/"}) {
    absl::StatusOr<std::string> read = Read(path);
    EXPECT_FALSE(read.ok()) << "\"" << path << "\" read " << *read;
  }
  EXPECT_FALSE(Read(std::string("output/model.bin\0x", 18)).ok());
}

TEST_P(OpenBeneathTest, AFifoDoesNotBlockTheOpen) {
  ASSERT_EQ(mkfifo(dir_.Join("jobs/7/output/fifo").c_str(), 0600), 0);
  absl::StatusOr<OwnedFd> fd = GetParam()(root_.get(), "output/fifo", O_RDONLY);
  ASSERT_TRUE(fd.ok()) << fd.status();  // opened, not waited for a writer
  struct stat st;
  ASSERT_EQ(fstat(fd->get(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, OpenBeneathTest,
                         ::testing::Values(&OpenBeneath, &OpenBeneathWalking),
                         [](const auto& info) { return info.index == 0 ? "Openat2" : "Walking"; });

TEST(TenantFolderTest, ReadsTheOwnersRegularFilesOnly) {
  dlp::testing::TempDir dir;
  dir.WriteFile("jobs/7/status.json", "{}");
  dir.WriteFile("jobs/7/logs/worker-0.log", std::string(100'000, 'x'));
  ASSERT_EQ(mkfifo(dir.Join("jobs/7/fifo").c_str(), 0600), 0);
  absl::StatusOr<TenantFolder> job = TenantFolder::Open(dir.Join("jobs"), "7");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->owner(), geteuid());
  EXPECT_EQ(*job->ReadFile("status.json", 0, 1 << 20), "{}");
  EXPECT_EQ(job->ReadFile("logs/worker-0.log", 99'990, 1 << 20)->size(), 10u);
  EXPECT_EQ(job->ReadFile("logs/worker-0.log", 0, 7)->size(), 7u);  // the cap
  EXPECT_TRUE(absl::IsPermissionDenied(job->OpenFile("fifo").status()));
  EXPECT_TRUE(absl::IsPermissionDenied(job->OpenFile("logs").status()));
  absl::StatusOr<TenantFolder> logs = job->Sub("logs");
  ASSERT_TRUE(logs.ok()) << logs.status();
  EXPECT_EQ(logs->OpenFile("worker-0.log")->size, 100'000);
  EXPECT_TRUE(job->Exists("fifo"));
  EXPECT_FALSE(job->Exists("nothing"));
}

TEST(TenantFolderTest, TheJobsFolderItselfMayNotBeALink) {
  dlp::testing::TempDir dir;
  dir.WriteFile("state/dlpd.token", "secret");
  ASSERT_EQ(mkdir(dir.Join("jobs").c_str(), 0700), 0);
  ASSERT_EQ(symlink(dir.Join("state").c_str(), dir.Join("jobs/7").c_str()), 0);
  EXPECT_FALSE(TenantFolder::Open(dir.Join("jobs"), "7").ok());
  EXPECT_FALSE(TenantFolder::Open(dir.Join("jobs"), "../state").ok());
}

// A hard link to a file the job's user does not own (possible where
// fs.protected_hardlinks is off) reads as no file at all. Needs root to give
// files away; skips otherwise.
TEST(TenantFolderTest, AFileOfAnotherUserIsNotRead) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  dlp::testing::TempDir dir;
  const std::string job = dir.Join("jobs/7");
  dir.WriteFile("jobs/7/mine", "mine");
  const std::string other = dir.WriteFile("jobs/7/shadow", "root's secret");
  ASSERT_EQ(chown(job.c_str(), 4242, 4242), 0);
  ASSERT_EQ(chown(dir.Join("jobs/7/mine").c_str(), 4242, 4242), 0);
  ASSERT_EQ(chown(other.c_str(), 0, 0), 0);
  absl::StatusOr<TenantFolder> folder = TenantFolder::Open(dir.Join("jobs"), "7");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(folder->owner(), 4242u);
  EXPECT_EQ(*folder->ReadFile("mine", 0, 100), "mine");
  EXPECT_TRUE(absl::IsPermissionDenied(folder->ReadFile("shadow", 0, 100).status()));
  ASSERT_EQ(mkdir(dir.Join("jobs/7/rootdir").c_str(), 0755), 0);
  EXPECT_FALSE(folder->Sub("rootdir").ok());
}

}  // namespace
}  // namespace dlp::contract
