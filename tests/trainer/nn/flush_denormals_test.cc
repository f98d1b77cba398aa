// Subnormal floats flushed to zero while a ScopedFlushDenormals lives, and
// back after it.
#include "nn/flush_denormals.h"

#include <limits>

#include "gtest/gtest.h"

namespace dlp::fmnist {
namespace {

// Half the smallest normal float: a subnormal.
float Subnormal() { return std::numeric_limits<float>::min() / 2; }

#if defined(__SSE2__)
TEST(FlushDenormals, SubnormalsAreZeroInsideTheScopeAndBackAfterIt) {
  volatile float tiny = Subnormal();
  {
    const ScopedFlushDenormals flush;
    volatile float product = tiny * 1.0f;
    EXPECT_EQ(product, 0.0f);
  }
  volatile float product = tiny * 1.0f;
  EXPECT_EQ(product, Subnormal());
}
#endif

}  // namespace
}  // namespace dlp::fmnist
