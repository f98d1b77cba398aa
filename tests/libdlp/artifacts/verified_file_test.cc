// VerifiedFile, which keeps a download only when its size and SHA-256 match.
#include "artifacts/verified_file.h"

#include <filesystem>

#include "contract/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;

TEST(VerifiedFile, KeepsAMatchingDownload) {
  testing::TempDir dir;
  auto file =
      VerifiedFile::Create(dir.path(), "sub/model.ckpt", contract::Sha256Hex("weights"), 7);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append("wei").ok());
  ASSERT_TRUE((*file)->Append("ghts").ok());
  auto written = (*file)->Finish();
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, dir.Join("sub/model.ckpt"));
  EXPECT_EQ(testing::ReadFileOrEmpty(*written), "weights");
  EXPECT_FALSE(std::filesystem::exists(dir.Join("sub/.model.ckpt.part")));
}

TEST(VerifiedFile, DetectsACorruptedOrShortDownloadAndLeavesNothing) {
  testing::TempDir dir;
  {
    auto file =
        VerifiedFile::Create(dir.path(), "model.ckpt", contract::Sha256Hex("weights"), 7);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append("weighTs").ok());  // one byte flipped
    auto written = (*file)->Finish();
    EXPECT_TRUE(absl::IsDataLoss(written.status())) << written.status();
    EXPECT_THAT(written.status().message(), HasSubstr("SHA-256 mismatch"));
  }
  {
    auto file =
        VerifiedFile::Create(dir.path(), "model.ckpt", contract::Sha256Hex("weights"), 7);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append("weig").ok());  // cut short
    EXPECT_THAT((*file)->Finish().status().message(), HasSubstr("received 4 bytes, expected 7"));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  EXPECT_TRUE(absl::IsInvalidArgument(VerifiedFile::Create(dir.path(), "../x", "", 0).status()));
}

}  // namespace
}  // namespace dlp::internal
