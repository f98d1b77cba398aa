// The sum a rank takes of its share of every rank's gradient: in rank order,
// so that every owner sums alike, and in place in its own gradient.
#include "step/shard_exchange.h"

#include <vector>

#include "gtest/gtest.h"

namespace dlp::fmnist {
namespace {

TEST(SumInOrder, AddsTheSourcesInOrderIntoOneOfThem) {
  // Not a multiple of the chunk, and values whose float sum depends on the order.
  const size_t n = 2500;
  std::vector<std::vector<float>> grads(3, std::vector<float>(n));
  for (size_t i = 0; i < n; ++i) {
    grads[0][i] = 1e8f;
    grads[1][i] = static_cast<float>(i % 7) - 3.0f;
    grads[2][i] = -1e8f;
  }
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = (grads[0][i] + grads[1][i]) + grads[2][i];
  ASSERT_NE(want[0], (grads[2][0] + grads[0][0]) + grads[1][0]);
  // Into the last: adding the others to it instead would cancel the large values first.
  SumInOrder({grads[0].data(), grads[1].data(), grads[2].data()}, grads[2].data(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(grads[2][i], want[i]) << i;
}

TEST(SumInOrder, OneSourceIsACopy) {
  const std::vector<float> only = {1.5f, -2.0f, 3.25f};
  std::vector<float> out(3);
  SumInOrder({only.data()}, out.data(), out.size());
  EXPECT_EQ(out, only);
}

}  // namespace
}  // namespace dlp::fmnist
