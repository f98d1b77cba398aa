// The waiting primitives of the links: a rank with a core of its own spins, a
// rank that shares its core yields it, until its condition holds; each gives
// up (to sleep) only after its budget.
#include "comm/link.h"

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

TEST(YieldUntil, ReturnsAtOnceWhenAlreadyReady) {
  int looks = 0;
  EXPECT_TRUE(YieldUntil([&] { return ++looks > 0; }, absl::Seconds(60)));
  EXPECT_EQ(looks, 1);
}

TEST(YieldUntil, SeesAConditionAnotherThreadSets) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag.store(true); });
  // A budget far longer than any scheduling delay: only a lost update fails.
  EXPECT_TRUE(YieldUntil([&] { return flag.load(); }, absl::Seconds(60)));
  setter.join();
}

TEST(YieldUntil, GivesUpOnlyAfterItsBudget) {
  const absl::Duration budget = absl::Milliseconds(5);
  const absl::Time start = absl::Now();
  EXPECT_FALSE(YieldUntil([] { return false; }, budget));
  EXPECT_GE(absl::Now() - start, budget);
}

TEST(SpinFor, SeesAConditionAnotherThreadSets) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag.store(true); });
  EXPECT_TRUE(SpinFor([&] { return flag.load(); }, absl::Seconds(60)));
  setter.join();
}

TEST(SpinFor, GivesUpOnlyAfterItsBudget) {
  const absl::Time start = absl::Now();
  EXPECT_FALSE(SpinFor([] { return false; }, kSpinBudget));
  EXPECT_GE(absl::Now() - start, kSpinBudget);
}

}  // namespace
}  // namespace dlp::runtime
