// Reading a job's output folder: listing with digests, sub-paths, and every
// way out of the folder refused (.., absolute, symbolic links, FIFOs).
#include "contract/output_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "contract/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

using ::testing::HasSubstr;

std::string Read(const OpenedArtifact& file) {
  std::string out;
  EXPECT_TRUE(StreamFile(file.fd.get(), [&](std::string_view d) {
                out.append(d);
                return true;
              }).ok());
  return out;
}

class OutputFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    out_path_ = dir_.Join("output");
    const std::string& out = out_path_;
    dir_.WriteFile("output/model.ckpt", "weights");
    dir_.WriteFile("output/epochs/1.json", "{\"epoch\":1}");
    dir_.WriteFile("secret", "outside");
    ASSERT_EQ(symlink("/etc/passwd", (out + "/passwd").c_str()), 0);
    ASSERT_EQ(symlink(dir_.Join("secret").c_str(), (out + "/epochs/secret").c_str()), 0);
    ASSERT_EQ(symlink(dir_.path().c_str(), (out + "/up").c_str()), 0);
    ASSERT_EQ(mkfifo((out + "/fifo").c_str(), 0600), 0);
    absl::StatusOr<TenantFolder> opened = OpenOwnFolder(out_path_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    out_.emplace(std::move(*opened));
  }

  testing::TempDir dir_;
  std::string out_path_;
  std::optional<TenantFolder> out_;
};

TEST_F(OutputFolder, ListsRegularFilesWithDigestsAndSkipsLinks) {
  auto all = ListArtifacts(*out_, "", /*digests=*/true);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].path, "epochs/1.json");
  EXPECT_EQ((*all)[1].path, "model.ckpt");
  EXPECT_EQ((*all)[1].size, 7);
  EXPECT_EQ((*all)[1].sha256, Sha256Hex("weights"));

  auto sub = ListArtifacts(*out_, "epochs", true);
  ASSERT_TRUE(sub.ok()) << sub.status();
  ASSERT_EQ(sub->size(), 1u);
  EXPECT_EQ((*sub)[0].path, "epochs/1.json");
  auto one = ListArtifacts(*out_, "model.ckpt", false);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].sha256, "");

  EXPECT_TRUE(absl::IsNotFound(OpenOwnFolder(dir_.Join("not-started")).status()));
}

// The job replaced its output folder with a link to /: read as dlpd reads a
// job's folder (from the jobs folder it made), it is no folder at all.
TEST(OutputFolderOfAJob, IsNotFollowedWhenItIsALink) {
  testing::TempDir dir;
  dir.WriteFile("jobs/7/logs/worker-0.log", "");
  ASSERT_EQ(symlink("/", dir.Join("jobs/7/output").c_str()), 0);
  absl::StatusOr<TenantFolder> job = TenantFolder::Open(dir.Join("jobs"), "7");
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<TenantFolder> output = job->Sub("output");
  EXPECT_FALSE(output.ok());
  EXPECT_FALSE(job->OpenFile("output/etc/passwd").ok());
}

TEST_F(OutputFolder, OpensFilesInsideOnly) {
  auto model = OpenArtifact(*out_, "model.ckpt");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->size, 7);
  EXPECT_EQ(Read(*model), "weights");
  auto nested = OpenArtifact(*out_, "epochs/1.json");
  ASSERT_TRUE(nested.ok()) << nested.status();

  for (const char* bad :
       {"../secret", "epochs/../../secret", "/etc/passwd", "", "a//b", "./x", "epochs/."}) {
    auto r = OpenArtifact(*out_, bad);
    EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << bad << ": " << r.status();
  }
  // Symbolic links, to a file or through a folder, and non-regular files.
  for (const char* refused : {"passwd", "epochs/secret", "up/secret", "fifo", "epochs", "nope"}) {
    auto r = OpenArtifact(*out_, refused);
    EXPECT_TRUE(absl::IsNotFound(r.status())) << refused << ": " << r.status();
  }
  EXPECT_TRUE(absl::IsNotFound(ListArtifacts(*out_, "up", true).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ListArtifacts(*out_, "../", true).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateArtifactPath(std::string(2000, 'a'))));
}

}  // namespace
}  // namespace dlp::contract
