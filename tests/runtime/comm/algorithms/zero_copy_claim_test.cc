// Step 1 of the zero-copy allreduce shares out its blocks through the slices'
// counters: a rank whose peers never get to run still delivers every result,
// and ranks running side by side reduce each block exactly once (in place, a
// block reduced twice would add the sums again).
#include <cstring>
#include <thread>
#include <vector>

#include "comm/transports/shm_group.h"
#include "comm/transports/shm_link.h"
#include "comm/algorithms/zero_copy.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

constexpr int kRanks = 3;
// Several blocks a slice, and a slice size that is not a multiple of a block.
const size_t kCount = 3 * 5 * ZeroCopyBlockBytes(false) / sizeof(float) + 11;

struct Fixture {
  std::vector<std::shared_ptr<ShmSegment>> segments;
  std::vector<std::vector<float>> send, recv;

  Fixture() {
    for (int r = 0; r < kRanks; ++r) {
      auto seg = ShmSegment::Create(NewShmName(r), r, ShmGroup::SegmentBytes(1));
      EXPECT_TRUE(seg.ok()) << seg.status();
      segments.push_back(*seg);
      std::vector<float> in(kCount);
      for (size_t i = 0; i < kCount; ++i) in[i] = static_cast<float>(r + 1) + (i % 7);
      send.push_back(in);
      recv.emplace_back(kCount, -1.0f);
    }
  }

  ShmGroup Group(int rank) { return ShmGroup(rank, 1, segments, absl::Seconds(30), false); }

  SharedBuffers Buffers(bool in_place) {
    SharedBuffers b;
    for (int r = 0; r < kRanks; ++r) {
      b.send.push_back(reinterpret_cast<const char*>(send[static_cast<size_t>(r)].data()));
      b.recv.push_back(
          reinterpret_cast<char*>((in_place ? send : recv)[static_cast<size_t>(r)].data()));
    }
    return b;
  }

  // The index of the first wrong element of any rank's result, or -1.
  static long FirstWrong(const std::vector<std::vector<float>>& results) {
    for (const auto& out : results) {
      for (size_t i = 0; i < kCount; ++i) {
        const float want = static_cast<float>(1 + 2 + 3) + 3.0f * static_cast<float>(i % 7);
        if (out[i] != want) return static_cast<long>(i);
      }
    }
    return -1;
  }
};

TEST(ZeroCopyClaimTest, ARankWhosePeersNeverRunDeliversEverySlice) {
  Fixture f;
  ShmGroup g = f.Group(1);
  ReduceAndDeliver(g, f.Buffers(/*in_place=*/false), kCount, DLP_FLOAT32, DLP_SUM);
  EXPECT_EQ(Fixture::FirstWrong(f.recv), -1);
}

// Step 1 in place on `per_rank` threads of every rank at once (a claiming
// rank with cores to spare reduces on several, claiming from the same counters).
void ReduceSideBySide(Fixture& f, int per_rank) {
  const SharedBuffers buffers = f.Buffers(/*in_place=*/true);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    for (int k = 0; k < per_rank; ++k) {
      threads.emplace_back([&f, &buffers, r] {
        ShmGroup g = f.Group(r);
        ReduceAndDeliver(g, buffers, kCount, DLP_FLOAT32, DLP_SUM);
      });
    }
  }
  for (std::thread& t : threads) t.join();
}

TEST(ZeroCopyClaimTest, RanksSideBySideReduceEachBlockOnce) {
  Fixture f;
  ReduceSideBySide(f, 1);
  EXPECT_EQ(Fixture::FirstWrong(f.send), -1);
}

TEST(ZeroCopyClaimTest, SeveralThreadsOfEachRankReduceEachBlockOnce) {
  Fixture f;
  ReduceSideBySide(f, 3);
  EXPECT_EQ(Fixture::FirstWrong(f.send), -1);
}

TEST(ZeroCopyClaimTest, AsManyRanksClaimAsThereAreCoresOnePerBlockOfNeighbours) {
  for (int ranks = 1; ranks <= 16; ++ranks) {
    for (int workers = 1; workers <= ranks; ++workers) {
      std::vector<int> claiming;
      for (int r = 0; r < ranks; ++r) {
        if (ClaimsBlocks(r, ranks, workers)) claiming.push_back(r);
      }
      ASSERT_EQ(static_cast<int>(claiming.size()), workers) << ranks << " ranks";
      ASSERT_EQ(claiming.front(), 0);
      if (ranks % workers != 0) continue;
      // Ranks bound in blocks of ranks/workers neighbours: one in each block.
      for (int k = 0; k < workers; ++k) {
        EXPECT_EQ(claiming[static_cast<size_t>(k)] / (ranks / workers), k)
            << ranks << " ranks, " << workers << " workers";
      }
    }
  }
  EXPECT_TRUE(ClaimsBlocks(0, 4, 2));
  EXPECT_FALSE(ClaimsBlocks(1, 4, 2));
  EXPECT_TRUE(ClaimsBlocks(2, 4, 2));
  EXPECT_FALSE(ClaimsBlocks(3, 4, 2));
}

TEST(ZeroCopyClaimTest, OneRankACoreClaimsAndEveryRankWhenThereAreCoresEnough) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  ASSERT_GT(cores, 0);
  EXPECT_EQ(ClaimingRanks(1), 1);
  EXPECT_EQ(ClaimingRanks(cores), cores);
  EXPECT_EQ(ClaimingRanks(2 * cores + 1), cores);
}

}  // namespace
}  // namespace dlp::runtime
