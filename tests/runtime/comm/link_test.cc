// The waiting primitives of the links: a rank with a core of its own spins, a
// rank that shares its core yields it, until its condition holds; each gives
// up (to sleep) only after its budget.
#include "comm/link.h"

#include <atomic>
#include <functional>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

// Whether `wait` sees a flag that another thread sets, within a budget far
// longer than any scheduling delay: only a lost update fails.
template <typename Wait>
bool SeesAFlagAnotherThreadSets(const Wait& wait) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag.store(true); });
  const bool seen = wait([&] { return flag.load(); }, absl::Seconds(60));
  setter.join();
  return seen;
}

// How long `wait` took to give up on a condition that never holds (or
// InfiniteDuration if it did not give up).
template <typename Wait>
absl::Duration TimeToGiveUp(const Wait& wait, absl::Duration budget) {
  const absl::Time start = absl::Now();
  if (wait([] { return false; }, budget)) return absl::InfiniteDuration();
  return absl::Now() - start;
}

const auto kYield = [](const std::function<bool()>& ready, absl::Duration budget) {
  return YieldUntil(ready, budget);
};
const auto kSpin = [](const auto& ready, absl::Duration budget) { return SpinFor(ready, budget); };

TEST(YieldUntil, ReturnsAtOnceWhenAlreadyReady) {
  int looks = 0;
  EXPECT_TRUE(YieldUntil([&] { return ++looks > 0; }, absl::Seconds(60)));
  EXPECT_EQ(looks, 1);
}

TEST(YieldUntil, SeesAConditionAnotherThreadSets) {
  EXPECT_TRUE(SeesAFlagAnotherThreadSets(kYield));
}

TEST(YieldUntil, GivesUpOnlyAfterItsBudget) {
  const absl::Duration took = TimeToGiveUp(kYield, absl::Milliseconds(5));
  EXPECT_GE(took, absl::Milliseconds(5));
  EXPECT_NE(took, absl::InfiniteDuration());
}

TEST(SpinFor, SeesAConditionAnotherThreadSets) { EXPECT_TRUE(SeesAFlagAnotherThreadSets(kSpin)); }

TEST(SpinFor, GivesUpOnlyAfterItsBudget) {
  const absl::Duration took = TimeToGiveUp(kSpin, kSpinBudget);
  EXPECT_GE(took, kSpinBudget);
  EXPECT_NE(took, absl::InfiniteDuration());
}

}  // namespace
}  // namespace dlp::runtime
