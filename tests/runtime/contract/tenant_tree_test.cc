// The disk usage of a job's folder laid out as a hostile job would: a link to
// the whole filesystem, a sparse file of a terabyte, a file linked many times,
// a chain of folders deeper than any walk should go.
#include "contract/tenant_tree.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

constexpr int64_t kMiB = 1 << 20;

class DiskUsageTest : public ::testing::Test {
 protected:
  DiskUsage Measure(int64_t max_entries = 1'000'000, int max_depth = 32) {
    absl::StatusOr<TenantFolder> job = TenantFolder::Open(dir_.Join("jobs"), "7");
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? MeasureDiskUsage(*job, max_entries, max_depth) : DiskUsage{};
  }
  dlp::testing::TempDir dir_;
};

TEST_F(DiskUsageTest, CountsWhatTheFilesHoldOnDisk) {
  dir_.WriteFile("jobs/7/output/data", std::string(2 * kMiB, 'x'));
  dir_.WriteFile("jobs/7/logs/worker-0.log", std::string(kMiB, 'y'));
  const DiskUsage usage = Measure();
  EXPECT_TRUE(usage.complete);
  EXPECT_GE(usage.bytes, 3 * kMiB);
  EXPECT_LT(usage.bytes, 3 * kMiB + kMiB / 2);  // plus the folders' blocks
}

TEST_F(DiskUsageTest, FollowsNoLinkAndCountsSparseAndLinkedFilesAsTheyAre) {
  const std::string data = dir_.WriteFile("jobs/7/data", std::string(kMiB, 'x'));
  ASSERT_EQ(symlink("/", dir_.Join("jobs/7/root").c_str()), 0);
  ASSERT_EQ(symlink("/usr", dir_.Join("jobs/7/usr").c_str()), 0);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(link(data.c_str(), dir_.Join("jobs/7/copy" + std::to_string(i)).c_str()), 0);
  }
  const int sparse = open(dir_.Join("jobs/7/sparse").c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(sparse, 0);
  ASSERT_EQ(ftruncate(sparse, int64_t{1} << 40), 0);
  close(sparse);
  const DiskUsage usage = Measure();
  EXPECT_TRUE(usage.complete);
  EXPECT_GE(usage.bytes, kMiB);
  EXPECT_LT(usage.bytes, 2 * kMiB);
}

TEST_F(DiskUsageTest, AWalkBeyondItsBoundsSaysItIsIncomplete) {
  std::string deep = "jobs/7";
  for (int i = 0; i < 40; ++i) deep += "/d";
  dir_.WriteFile(deep + "/file", "x");
  EXPECT_FALSE(Measure(1'000'000, 32).complete);
  EXPECT_TRUE(Measure(1'000'000, 64).complete);
  for (int i = 0; i < 20; ++i) dir_.WriteFile("jobs/7/many/" + std::to_string(i), "x");
  const DiskUsage bounded = Measure(10, 64);
  EXPECT_FALSE(bounded.complete);
  EXPECT_LE(bounded.entries, 10);
}

TEST_F(DiskUsageTest, RemovalTakesTheFolderAndNothingItLinksTo) {
  const std::string outside = dir_.WriteFile("outside/keep", "the host's file");
  dir_.WriteFile("jobs/7/output/deep/er/model.bin", "weights");
  ASSERT_EQ(symlink(dir_.Join("outside").c_str(), dir_.Join("jobs/7/output/link").c_str()), 0);
  ASSERT_EQ(link(outside.c_str(), dir_.Join("jobs/7/hard").c_str()), 0);
  ASSERT_EQ(mkfifo(dir_.Join("jobs/7/fifo").c_str(), 0600), 0);
  ASSERT_TRUE(RemoveTenantFolder(dir_.Join("jobs"), "7").ok());
  EXPECT_NE(access(dir_.Join("jobs/7").c_str(), F_OK), 0);
  EXPECT_EQ(access(outside.c_str(), F_OK), 0);
  EXPECT_TRUE(absl::IsNotFound(RemoveTenantFolder(dir_.Join("jobs"), "7")));
  // The job's folder itself a link: refused, and what it names stays.
  ASSERT_EQ(symlink(dir_.Join("outside").c_str(), dir_.Join("jobs/8").c_str()), 0);
  EXPECT_FALSE(RemoveTenantFolder(dir_.Join("jobs"), "8").ok());
  EXPECT_EQ(access(outside.c_str(), F_OK), 0);
}

TEST_F(DiskUsageTest, RemovalBeyondItsBoundsSaysWhatRemains) {
  std::string deep = "jobs/7";
  for (int i = 0; i < 10; ++i) deep += "/d";
  dir_.WriteFile(deep + "/file", "x");
  EXPECT_TRUE(absl::IsFailedPrecondition(RemoveTenantFolder(dir_.Join("jobs"), "7", 1000, 5)));
  EXPECT_TRUE(RemoveTenantFolder(dir_.Join("jobs"), "7").ok());
}

}  // namespace
}  // namespace dlp::contract
