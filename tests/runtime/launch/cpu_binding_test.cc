// How `dlp-run --bind-to core` shares a host's CPUs among its local ranks.
#include "common/cpu_binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlp::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CpuBinding, EachRankGetsAnEqualRunOfConsecutiveCpus) {
  const std::vector<int> cpus = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_THAT(CpusForLocalRank(cpus, 0, 2), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(CpusForLocalRank(cpus, 1, 2), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(CpusForLocalRank(cpus, 3, 8), ElementsAre(3));
}

TEST(CpuBinding, TheFirstRanksTakeTheCpusLeftOver) {
  const std::vector<int> cpus = {0, 1, 2, 3, 4};
  EXPECT_THAT(CpusForLocalRank(cpus, 0, 3), ElementsAre(0, 1));
  EXPECT_THAT(CpusForLocalRank(cpus, 1, 3), ElementsAre(2, 3));
  EXPECT_THAT(CpusForLocalRank(cpus, 2, 3), ElementsAre(4));
}

TEST(CpuBinding, OnlyTheCpusThisProcessMayUse) {
  // As under taskset -c 2,3,6,7 or a cgroup cpuset.
  const std::vector<int> cpus = {2, 3, 6, 7};
  EXPECT_THAT(CpusForLocalRank(cpus, 0, 2), ElementsAre(2, 3));
  EXPECT_THAT(CpusForLocalRank(cpus, 1, 2), ElementsAre(6, 7));
}

TEST(CpuBinding, MoreRanksThanCpusAreNotBound) {
  EXPECT_THAT(CpusForLocalRank({0, 1}, 0, 4), IsEmpty());
  EXPECT_THAT(CpusForLocalRank({}, 0, 1), IsEmpty());
  EXPECT_THAT(CpusForLocalRank({0, 1}, 2, 2), IsEmpty());
  EXPECT_THAT(CpusForLocalRank({0, 1}, -1, 2), IsEmpty());
}

TEST(CpuBinding, ThisProcessMayUseSomeCpu) {
  const std::vector<int> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  EXPECT_THAT(BindToCpus({-1}).message(), ::testing::HasSubstr("out of range"));
  ASSERT_TRUE(BindToCpus(cpus).ok());  // all of them again: no change
  EXPECT_EQ(AllowedCpus(), cpus);
}

}  // namespace
}  // namespace dlp::runtime
