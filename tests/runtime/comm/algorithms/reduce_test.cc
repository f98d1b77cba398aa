// The reduction kernels take a source at any address: a link's receive buffer
// can hold the next message's doubles 4 bytes off their alignment (seen under
// UBSan as a misaligned load in the ring allreduce).
#include "comm/algorithms/reduce.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

// `values` copied `offset` bytes past an aligned address.
template <typename T>
const void* Misaligned(std::vector<uint64_t>& storage, const std::vector<T>& values,
                       size_t offset) {
  storage.assign((values.size() * sizeof(T) + offset) / sizeof(uint64_t) + 2, 0);
  char* at = reinterpret_cast<char*>(storage.data()) + offset;
  std::memcpy(at, values.data(), values.size() * sizeof(T));
  return at;
}

TEST(Reduce, AMisalignedSourceOfDoublesSumsAsAnAlignedOne) {
  // More than one internal block (16 KiB) of doubles, 4 bytes off.
  std::vector<double> a(5000), b(5000);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.5 * static_cast<double>(i);
    b[i] = 1.0 + static_cast<double>(i);
  }
  std::vector<uint64_t> storage;
  const void* src = Misaligned(storage, b, 4);
  std::vector<double> into = a;
  ReduceInto(into.data(), src, into.size(), DLP_FLOAT64, DLP_SUM);
  std::vector<double> from(a.size());
  ReduceFrom(from.data(), a.data(), src, from.size(), DLP_FLOAT64, DLP_SUM);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(into[i], a[i] + b[i]) << i;
    ASSERT_EQ(from[i], a[i] + b[i]) << i;
  }
}

TEST(Reduce, MisalignedSourcesOfEveryWidthReduce) {
  std::vector<uint64_t> storage;
  std::vector<int64_t> big = {5, -7, 9};
  std::vector<int64_t> big_dst = {1, 2, 3};
  ReduceInto(big_dst.data(), Misaligned(storage, big, 4), 3, DLP_INT64, DLP_MAX);
  EXPECT_EQ(big_dst, (std::vector<int64_t>{5, 2, 9}));
  std::vector<float> f = {1.5f, 2.5f};
  std::vector<float> f_dst(2);
  const std::vector<float> f_a = {1, 1};
  ReduceFrom(f_dst.data(), f_a.data(), Misaligned(storage, f, 2), 2, DLP_FLOAT32, DLP_SUM);
  EXPECT_EQ(f_dst, (std::vector<float>{2.5f, 3.5f}));
  std::vector<int32_t> i32 = {4, -4};
  std::vector<int32_t> i32_dst = {1, 1};
  ReduceInto(i32_dst.data(), Misaligned(storage, i32, 1), 2, DLP_INT32, DLP_MIN);
  EXPECT_EQ(i32_dst, (std::vector<int32_t>{1, -4}));
}

}  // namespace
}  // namespace dlp::runtime
