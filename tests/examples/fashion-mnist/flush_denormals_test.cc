// Subnormal floats in training: flushed while the trainer runs
// (nn/flush_denormals.h), so that a rank's optimizer step never slows to
// microcode assists.
#include <cmath>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"
#include "trainer.h"

namespace dlp::fmnist {
namespace {

int CountSubnormals(const std::vector<float>& values) {
  int n = 0;
  for (float v : values) n += std::fpclassify(v) == FP_SUBNORMAL;
  return n;
}

// With momentum, the velocity of a weight whose pixel is nearly always black
// decays by 0.9 a step between rare gradients: without the flush it passes
// through the subnormal range, and the checkpoint holds such values.
TEST(FlushDenormals, ATrainedModelHoldsNoSubnormalParameterOrVelocity) {
  testing::TempDir dir;
  TrainOptions o;
  o.epochs = 1;
  o.batch = 16;
  o.engine.limit_train = 0;  // all 60,000: 3,750 steps, long gaps between rare gradients
  o.engine.limit_test = 100;
  o.engine.device = DeviceKind::kCpu;
  o.checkpoint_dir = dir.path();
  ASSERT_TRUE(Train(o, {}).ok());
  const absl::StatusOr<Checkpoint> c = LoadCheckpoint(dir.path());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(CountSubnormals(c->params), 0);
  EXPECT_EQ(CountSubnormals(c->velocity), 0);
}

}  // namespace
}  // namespace dlp::fmnist
