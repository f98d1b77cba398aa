// The waiting primitives of the links: a rank with a core of its own spins, a
// rank that shares its core yields it, until its condition holds; each gives
// up (to sleep) only after its budget; a sleeper is woken by the peer that
// publishes what it waits for.
#include "comm/transports/link.h"

#include <atomic>
#include <functional>
#include <thread>

#include "absl/time/clock.h"
#include "comm/transports/asymmetric_fence.h"
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

// Two threads hand a turn back and forth 10,000 times, each going to sleep at
// once on its doorbell until the other publishes the next turn, with fences
// on both sides or with the publisher's fence left to the sleeper. A lost
// wake-up leaves a sleeper in bed until its 10 s are up, and is counted.
int OversleptHandingATurnBackAndForth(bool light_wakers) {
  constexpr uint64_t kTurns = 10000;
  constexpr absl::Duration kLongest = absl::Seconds(10);
  Doorbell bells[2];
  std::atomic<uint64_t> turn{0};
  std::atomic<int> overslept{0};
  auto play = [&](int me) {
    for (uint64_t t = static_cast<uint64_t>(me); t < 2 * kTurns; t += 2) {
      auto ready = [&] { return turn.load(std::memory_order_acquire) >= t; };
      while (!ready()) {
        const absl::Time start = absl::Now();
        bells[me].SleepUnless(ready, kLongest, light_wakers);
        if (absl::Now() - start >= kLongest) ++overslept;
      }
      if (light_wakers) {
        turn.store(t + 1, std::memory_order_release);
        LightFence();
      } else {
        turn.store(t + 1, std::memory_order_seq_cst);
      }
      bells[1 - me].WakeIfSleeping();
    }
  };
  std::thread other(play, 1);
  play(0);
  other.join();
  EXPECT_EQ(turn.load(), 2 * kTurns);
  return overslept.load();
}

TEST(Doorbell, WakesASleeperWhenBothSidesFence) {
  EXPECT_EQ(OversleptHandingATurnBackAndForth(false), 0);
}

TEST(Doorbell, WakesASleeperWhenOnlyTheSleeperFences) {
  if (!AsymmetricFenceAvailable()) GTEST_SKIP() << "this kernel has no membarrier(2)";
  EXPECT_EQ(OversleptHandingATurnBackAndForth(true), 0);
}

}  // namespace
}  // namespace dlp::runtime
