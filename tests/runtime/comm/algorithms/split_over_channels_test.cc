// SplitOverChannels cuts a buffer into contiguous parts, one a 512 KiB up to
// the channels, and runs each on its own thread: the ring's channels, the
// direct algorithm's lanes and the zero-copy path's threads are sized by it.
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "comm/algorithms/channels.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

constexpr size_t kPart = size_t{512} << 10;

struct Parts {
  std::vector<std::pair<size_t, size_t>> ranges;  // by part index
  std::set<std::thread::id> threads;
};

Parts Split(size_t count, size_t elem, int channels) {
  Parts p;
  std::mutex mu;
  absl::Status s = SplitOverChannels(count, elem, channels, [&](int k, size_t begin, size_t end) {
    std::lock_guard<std::mutex> lock(mu);
    if (p.ranges.size() <= static_cast<size_t>(k)) p.ranges.resize(static_cast<size_t>(k) + 1);
    p.ranges[static_cast<size_t>(k)] = {begin, end};
    p.threads.insert(std::this_thread::get_id());
    return absl::OkStatus();
  });
  EXPECT_TRUE(s.ok()) << s;
  return p;
}

TEST(SplitOverChannelsTest, OnePartA512KiBUpToTheChannelsOnThreadsOfTheirOwn) {
  EXPECT_EQ(Split(kPart / 4 - 1, 4, 4).ranges.size(), 1u);
  EXPECT_EQ(Split(kPart / 4, 4, 4).ranges.size(), 1u);
  EXPECT_EQ(Split(2 * kPart / 4, 4, 4).ranges.size(), 2u);
  EXPECT_EQ(Split(64 * kPart, 1, 3).ranges.size(), 3u);
  EXPECT_EQ(Split(64 * kPart, 1, 1).ranges.size(), 1u);
  EXPECT_EQ(Split(64 * kPart, 1, 0).ranges.size(), 1u);
  const Parts p = Split(64 * kPart + 5, 1, 4);
  ASSERT_EQ(p.ranges.size(), 4u);
  EXPECT_EQ(p.threads.size(), 4u);
  // Contiguous, in order, covering the whole buffer.
  size_t at = 0;
  for (const auto& [begin, end] : p.ranges) {
    EXPECT_EQ(begin, at);
    EXPECT_GT(end, begin);
    at = end;
  }
  EXPECT_EQ(at, 64 * kPart + 5);
}

TEST(SplitOverChannelsTest, ReturnsAPartsError) {
  absl::Status s = SplitOverChannels(8 * kPart, 1, 4, [](int k, size_t, size_t) {
    return k == 2 ? absl::InternalError("part 2") : absl::OkStatus();
  });
  EXPECT_EQ(s.message(), "part 2");
}

}  // namespace
}  // namespace dlp::runtime
