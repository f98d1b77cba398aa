// ReduceAllStreamedToEach writes what ReduceAll writes, byte for byte, into every
// destination: the zero-copy allreduce relies on it for results that are
// bit-identical on every rank and to the staged algorithms.
#include "comm/algorithms/reduce_to_each.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "comm/algorithms/reduce.h"
#include "comm/core/dtype.h"
#include "gtest/gtest.h"

namespace dlp::runtime {
namespace {

constexpr dlp_dtype kTypes[] = {DLP_FLOAT32, DLP_FLOAT64, DLP_INT32,
                                DLP_INT64,   DLP_FLOAT16, DLP_BFLOAT16};
constexpr dlp_op kOps[] = {DLP_SUM, DLP_AVG, DLP_MIN, DLP_MAX};

template <typename T>
void Put(char* at, T value) {
  std::memcpy(at, &value, sizeof(value));
}

// Random elements of `t` whose sums round differently in another order
// (floats over many magnitudes), within range for the integers.
std::vector<char> RandomElements(dlp_dtype t, size_t count, std::mt19937_64& rng) {
  std::vector<char> out(count * DTypeSize(t));
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::uniform_int_distribution<int32_t> small(-1000000, 1000000);
  for (size_t i = 0; i < count; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    char* at = out.data() + i * DTypeSize(t);
    switch (t) {
      case DLP_FLOAT32:
        Put(at, static_cast<float>(v));
        break;
      case DLP_FLOAT64:
        Put(at, v);
        break;
      case DLP_INT32:
        Put(at, small(rng));
        break;
      case DLP_INT64:
        Put(at, int64_t{small(rng)} << 20);
        break;
      case DLP_FLOAT16:
        Put(at, FloatToHalf(static_cast<float>(v / 1e3)));
        break;
      case DLP_BFLOAT16:
        Put(at, FloatToBFloat16(static_cast<float>(v)));
        break;
    }
  }
  return out;
}

struct Shape {
  size_t sources;
  size_t dsts;
  size_t count;
  size_t source_offset;            // bytes past alignment, every source but the first
  std::vector<size_t> dst_offset;  // elements past a 64-byte boundary, per destination
};

// Runs ReduceAllStreamedToEach for `shape` and expects every destination to hold
// exactly what ReduceAll writes, and nothing written past it.
void ExpectLikeReduceAll(dlp_dtype t, dlp_op op, const Shape& shape, std::mt19937_64& rng) {
  const size_t elem = DTypeSize(t), bytes = shape.count * elem;
  std::vector<std::vector<char>> inputs;
  std::vector<std::vector<uint64_t>> storage(shape.sources);
  std::vector<const char*> sources;
  for (size_t j = 0; j < shape.sources; ++j) {
    inputs.push_back(RandomElements(t, shape.count, rng));
    storage[j].assign(bytes / 8 + 4, 0);
    // ReduceAll takes the first source aligned, the others anywhere.
    char* at = reinterpret_cast<char*>(storage[j].data()) + (j == 0 ? 0 : shape.source_offset);
    std::memcpy(at, inputs[j].data(), bytes);
    sources.push_back(at);
  }
  std::vector<uint64_t> expected_storage(bytes / 8 + 2);
  char* expected = reinterpret_cast<char*>(expected_storage.data());
  ReduceAll(expected, sources, shape.count, t, op);

  constexpr char kUntouched = 0x5a;
  std::vector<std::vector<char>> blocks(shape.dsts);
  std::vector<char*> dsts;
  for (size_t d = 0; d < shape.dsts; ++d) {
    blocks[d].assign(bytes + 256, kUntouched);
    char* base = blocks[d].data();
    base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
    dsts.push_back(base + shape.dst_offset[d] * elem);
  }
  ReduceAllStreamedToEach(dsts, sources, shape.count, t, op);
  for (size_t d = 0; d < shape.dsts; ++d) {
    SCOPED_TRACE("destination " + std::to_string(d));
    ASSERT_EQ(std::memcmp(dsts[d], expected, bytes), 0);
    ASSERT_EQ(dsts[d][bytes], kUntouched);
  }
}

TEST(ReduceAllStreamedToEach, WritesWhatReduceAllWritesForEveryTypeAndOp) {
  std::mt19937_64 rng(7);
  // Heads before the first aligned vector, tails after the last, a count below
  // one line, more than one block of the buffered path; 2 to 5 sources.
  const std::vector<Shape> shapes = {
      {2, 2, 1000, 0, {0, 0}}, {3, 4, 1003, 4, {1, 1, 1, 1}}, {5, 1, 777, 0, {3}},
      {4, 3, 5, 2, {1, 1, 1}}, {2, 2, 4096, 0, {2, 2}},
  };
  for (dlp_dtype t : kTypes) {
    for (dlp_op op : kOps) {
      for (const Shape& shape : shapes) {
        SCOPED_TRACE(std::string(DTypeName(t)) + " op " + std::to_string(op) + ", " +
                     std::to_string(shape.sources) + " sources, " + std::to_string(shape.count) +
                     " elements");
        ExpectLikeReduceAll(t, op, shape, rng);
      }
    }
  }
}

TEST(ReduceAllStreamedToEach, DestinationsAlignedDifferentlyGetTheSameResult) {
  // No one head brings both to a vector boundary: the block path runs.
  std::mt19937_64 rng(11);
  ExpectLikeReduceAll(DLP_FLOAT32, DLP_SUM, {3, 2, 10000, 0, {0, 1}}, rng);
  ExpectLikeReduceAll(DLP_FLOAT64, DLP_AVG, {2, 3, 5000, 4, {1, 0, 1}}, rng);
}

}  // namespace
}  // namespace dlp::runtime
