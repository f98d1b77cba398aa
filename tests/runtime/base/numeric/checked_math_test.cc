// Overflow-checked arithmetic on quantities.
#include "base/numeric/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace dlp::base {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMath, CheckedOperationsRefuseWhatDoesNotFit) {
  EXPECT_EQ(CheckedAdd<int64_t>(2, 3), 5);
  EXPECT_EQ(CheckedAdd<int64_t>(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedSub<int64_t>(kMin, 1), std::nullopt);
  EXPECT_EQ(CheckedMul<int64_t>(int64_t{4611686018427387904}, 3), std::nullopt);
  EXPECT_EQ(CheckedMul<int64_t>(int64_t{4611686018427387905}, 2), std::nullopt);
  EXPECT_EQ(CheckedMul<int64_t>(int64_t{1} << 40, 2048), int64_t{1} << 51);
  EXPECT_EQ(CheckedAdd<int>(std::numeric_limits<int>::max(), 1), std::nullopt);
}

TEST(CheckedMath, SaturatingOperationsClampToTheRange) {
  EXPECT_EQ(SaturatingMul<int64_t>(int64_t{4611686018427387904}, 3), kMax);
  EXPECT_EQ(SaturatingMul<int64_t>(int64_t{4611686018427387904}, -3), kMin);
  EXPECT_EQ(SaturatingAdd<int64_t>(kMax, kMax), kMax);
  EXPECT_EQ(SaturatingAdd<int64_t>(kMin, -1), kMin);
  EXPECT_EQ(SaturatingSub<int64_t>(-5, kMax), kMin);
  EXPECT_EQ(SaturatingSub<int64_t>(5, kMin), kMax);
  EXPECT_EQ(SaturatingSub<int>(0, std::numeric_limits<int>::min()),
            std::numeric_limits<int>::max());
  EXPECT_EQ(SaturatingAdd<int64_t>(40, 2), 42);
}

}  // namespace
}  // namespace dlp::base
