// The tuner's trials run alike on every rank, and its choice is the same
// everywhere even when the ranks' own timings disagree: real segments, one
// thread a rank, timings given rather than measured so that the choice is known.
#include "comm/selection/allreduce_tuner.h"

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "comm/transports/shm_group.h"
#include "comm/transports/shm_link.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

constexpr int kRanks = 3;
using Timing = std::function<absl::Duration(int rank, Algo ran)>;

constexpr int kEach = AllreduceTuner::kSettle + AllreduceTuner::kTrials;

int Trials(size_t bytes) {
  return static_cast<int>(AllreduceTuner::Candidates(bytes).size()) * kEach;
}

// What each rank ran at each tuned call of `bytes`, up to and past the choice.
std::vector<std::vector<Algo>> Tune(size_t bytes, const Timing& timing) {
  std::vector<std::shared_ptr<ShmSegment>> segments;
  for (int r = 0; r < kRanks; ++r) {
    auto seg = ShmSegment::Create(NewShmName(r), r, ShmGroup::SegmentBytes(1));
    EXPECT_TRUE(seg.ok()) << seg.status();
    if (!seg.ok()) return std::vector<std::vector<Algo>>(kRanks);
    segments.push_back(*seg);
  }
  std::vector<std::vector<Algo>> ran(kRanks);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      ShmGroup g(r, 1, segments, absl::Seconds(30), false);
      AllreduceTuner tuner;
      for (int call = 0; call < Trials(bytes) + 3; ++call) {
        absl::StatusOr<AllreduceTuner::Pick> pick = tuner.Next(g, bytes);
        ASSERT_TRUE(pick.ok()) << pick.status();
        // A candidate's first calls settle after another algorithm: not timed.
        EXPECT_EQ(pick->timed, call < Trials(bytes) && call % kEach >= AllreduceTuner::kSettle)
            << "call " << call;
        if (pick->timed) tuner.Record(bytes, pick->algo, timing(r, pick->algo));
        ran[static_cast<size_t>(r)].push_back(pick->algo);
      }
    });
  }
  for (std::thread& t : ranks) t.join();
  return ran;
}

absl::Duration Micros(double us) { return absl::Microseconds(us); }

// What a rank ran last: its choice.
std::string Chosen(const std::vector<Algo>& ran) {
  return ran.empty() ? "none" : AlgoName(ran.back());
}

TEST(AllreduceTuner, EachInTurnAndTheFastestStays) {
  const auto ran = Tune(64 << 10, [](int, Algo a) {
    return Micros(a == Algo::kOneShot ? 9 : a == Algo::kDirect ? 5 : 7);
  });
  const absl::Span<const Algo> candidates = AllreduceTuner::Candidates(64 << 10);
  ASSERT_EQ(candidates.size(), 3u);
  for (int r = 0; r < kRanks; ++r) {
    const std::vector<Algo>& mine = ran[static_cast<size_t>(r)];
    ASSERT_EQ(mine.size(), static_cast<size_t>(Trials(64 << 10) + 3));
    for (size_t call = 0; call < mine.size(); ++call) {
      const Algo want =
          call >= static_cast<size_t>(Trials(64 << 10)) ? Algo::kDirect : candidates[call / kEach];
      EXPECT_EQ(AlgoName(mine[call]), std::string(AlgoName(want)))
          << "rank " << r << " call " << call;
    }
  }
}

TEST(AllreduceTuner, RanksThatDisagreeTakeTheLowerSlowestMedian) {
  // Rank 0 finds one-shot fastest, rank 1 direct, and rank 1 is the slowest
  // for one-shot: the group's one-shot ends when rank 1's does.
  const auto ran = Tune(16 << 10, [](int rank, Algo a) {
    if (rank == 0) return Micros(a == Algo::kOneShot ? 1 : a == Algo::kDirect ? 3 : 6);
    if (rank == 1) return Micros(a == Algo::kOneShot ? 10 : a == Algo::kDirect ? 4 : 5);
    return Micros(2);
  });
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(Chosen(ran[static_cast<size_t>(r)]), "direct") << "rank " << r;
  }
}

TEST(AllreduceTuner, OneSlowTrialDoesNotDecide) {
  // One timed one-shot call a rank is slow (a busy host): the median ignores
  // it, where a mean would choose direct.
  int timed[kRanks] = {};
  const auto ran = Tune(256 << 10, [&](int rank, Algo a) {
    if (a == Algo::kDirect) return Micros(30);
    if (a == Algo::kRing) return Micros(40);
    return Micros(timed[rank]++ == 1 ? 1000 : 25);
  });
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(Chosen(ran[static_cast<size_t>(r)]), "oneshot") << "rank " << r;
  }
}

TEST(AllreduceTuner, OneShotIsTriedUpToItsLimitOnly) {
  using Algos = std::vector<Algo>;
  auto candidates = [](size_t bytes) {
    const absl::Span<const Algo> c = AllreduceTuner::Candidates(bytes);
    return Algos(c.begin(), c.end());
  };
  const Algos all = {Algo::kOneShot, Algo::kDirect, Algo::kRing};
  EXPECT_EQ(candidates(4 << 10), all);
  EXPECT_EQ(candidates(AllreduceTuner::kOneShotMaxBytes), all);
  EXPECT_EQ(candidates(AllreduceTuner::kOneShotMaxBytes + 1), (Algos{Algo::kDirect, Algo::kRing}));
  const auto ran = Tune(4 << 20, [](int, Algo a) { return Micros(a == Algo::kRing ? 400 : 500); });
  for (int r = 0; r < kRanks; ++r) {
    const std::vector<Algo>& mine = ran[static_cast<size_t>(r)];
    ASSERT_FALSE(mine.empty());
    EXPECT_EQ(AlgoName(mine.front()), std::string("direct")) << "rank " << r;
    EXPECT_EQ(Chosen(mine), "ring") << "rank " << r;
  }
}

TEST(AllreduceTuner, OnlyTheOneHostAlgorithmsAreTuned) {
  EXPECT_TRUE(AllreduceTuner::Tunes(Algo::kOneShot));
  EXPECT_TRUE(AllreduceTuner::Tunes(Algo::kDirect));
  EXPECT_TRUE(AllreduceTuner::Tunes(Algo::kRing));
  EXPECT_FALSE(AllreduceTuner::Tunes(Algo::kDoubling));
  EXPECT_FALSE(AllreduceTuner::Tunes(Algo::kHierarchical));
}

}  // namespace
}  // namespace dlp::runtime
