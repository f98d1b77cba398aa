// No exception ends dlpd: thread bodies and loop rounds that throw are logged
// and the loop goes on.
#include "server/support/thread_guard.h"

#include <atomic>
#include <stdexcept>

#include <gtest/gtest.h>

#include "server/monitor/usage_sampler.h"
#include "support/subprocess.h"

namespace dlp::server {
namespace {

TEST(ThreadGuardTest, RunGuardedSwallowsAndReports) {
  EXPECT_TRUE(RunGuarded("fine", [] {}));
  EXPECT_FALSE(RunGuarded("throws", [] { throw std::runtime_error("boom"); }));
  EXPECT_FALSE(RunGuarded("throws an int", [] { throw 7; }));
}

TEST(ThreadGuardTest, ThreadWhoseBodyThrowsEndsQuietly) {
  std::atomic<bool> ran{false};
  std::thread t = GuardedThread("test thread", [&] {
    ran = true;
    throw std::runtime_error("boom");
  });
  t.join();  // std::terminate otherwise
  EXPECT_TRUE(ran);
}

// The sampler's source of jobs is a seam: the first rounds throw (as reading
// /proc of an exited process did), and the sampler keeps sampling.
TEST(ThreadGuardTest, SamplerKeepsSamplingAfterARoundThrew) {
  std::atomic<int> calls{0};
  UsageSampler sampler(
      [&] {
        if (++calls <= 2) throw std::runtime_error("round failed");
        return std::vector<SampledJob>{};
      },
      absl::Milliseconds(1));
  sampler.Start();
  EXPECT_TRUE(dlp::testing::Eventually([&] { return calls.load() >= 5; }));
}

}  // namespace
}  // namespace dlp::server
