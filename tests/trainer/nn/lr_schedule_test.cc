#include "nn/lr_schedule.h"

#include "gtest/gtest.h"

namespace dlp::fmnist {
namespace {

TEST(LrScheduleTest, ConstantIsTheBaseRateAtEveryStep) {
  for (long step : {0L, 5L, 99L}) {
    EXPECT_FLOAT_EQ(LearningRate(LrSchedule::kConstant, 0.1f, step, 100), 0.1f);
  }
}

TEST(LrScheduleTest, CosineFallsFromTheBaseRateToZeroThroughHalfAtMidRun) {
  EXPECT_FLOAT_EQ(LearningRate(LrSchedule::kCosine, 0.1f, 0, 100), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(LrSchedule::kCosine, 0.1f, 50, 100), 0.05f);
  EXPECT_NEAR(LearningRate(LrSchedule::kCosine, 0.1f, 100, 100), 0.0f, 1e-9);
  float previous = 1;
  for (long step = 0; step <= 100; ++step) {
    const float rate = LearningRate(LrSchedule::kCosine, 0.1f, step, 100);
    EXPECT_LE(rate, previous) << "step " << step;
    previous = rate;
  }
}

TEST(LrScheduleTest, CosineStaysWithinItsRangeOutsideTheRun) {
  EXPECT_NEAR(LearningRate(LrSchedule::kCosine, 0.1f, 150, 100), 0.0f, 1e-9);
  EXPECT_FLOAT_EQ(LearningRate(LrSchedule::kCosine, 0.1f, 3, 0), 0.1f);
}

}  // namespace
}  // namespace dlp::fmnist
