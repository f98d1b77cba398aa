// Retention of ended jobs' files: by age, then the oldest while over the byte
// budget; a folder already gone is skipped.
#include "server/controller/retention.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr int kKiB = 1024;

class RetentionTest : public ::testing::Test {
 protected:
  // Jobs 1, 2, 3 ended 30, 20 and 10 minutes ago, each with 600 KiB of output.
  RetentionTest() {
    for (int id = 1; id <= 3; ++id) {
      dir_.WriteFile(absl::StrCat("jobs/", id, "/output/data"), std::string(600 * kKiB, 'x'));
      ended_.push_back({absl::StrCat(id), now_ - absl::Minutes(40 - 10 * id)});
    }
  }
  bool Kept(const std::string& id) const {
    return access(dir_.Join("jobs/" + id).c_str(), F_OK) == 0;
  }

  dlp::testing::TempDir dir_;
  absl::Time now_ = absl::Now();
  std::vector<EndedJob> ended_;
};

TEST_F(RetentionTest, KeepsEverythingWithoutASetting) {
  EXPECT_TRUE(Retention({}, dir_.Join("jobs")).Prune(ended_, now_).empty());
  EXPECT_TRUE(Kept("1") && Kept("2") && Kept("3"));
}

TEST_F(RetentionTest, RemovesWhatEndedLongerAgoThanTheAge) {
  const Retention retention({.max_age = absl::Minutes(25)}, dir_.Join("jobs"));
  EXPECT_THAT(retention.Prune(ended_, now_),
              ElementsAre(Pair("1", StartsWith("ended more than 25m ago"))));
  EXPECT_FALSE(Kept("1"));
  EXPECT_TRUE(Kept("2") && Kept("3"));
  EXPECT_TRUE(retention.Prune(ended_, now_).empty());  // gone already
}

TEST_F(RetentionTest, RemovesTheOldestWhileOverTheBudget) {
  const Retention retention({.max_bytes = 1300 * kKiB}, dir_.Join("jobs"));
  EXPECT_THAT(retention.Prune(ended_, now_),
              ElementsAre(Pair("1", StartsWith("ended jobs' files over the"))));
  EXPECT_TRUE(Kept("2") && Kept("3"));
}

}  // namespace
}  // namespace dlp::server
