// The trainer's CPU GEMM against a float64 reference, for every transpose, beta
// and the edge shapes of its tiles (rows and columns that do not fill one, a k
// that does not fill a vector), including the trainer's own layer shapes; and
// its sum of transposed products against the products summed one by one.
#include "nn/cpu_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace dlp::fmnist {
namespace {

struct Shape {
  bool trans_a, trans_b;
  int m, n, k;
};

std::vector<float> Reference(const Shape& s, const std::vector<float>& a,
                             const std::vector<float>& b, float beta, std::vector<float> c) {
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      double sum = 0;
      for (int p = 0; p < s.k; ++p) {
        const double x = s.trans_a ? a[p * s.m + i] : a[i * s.k + p];
        const double y = s.trans_b ? b[j * s.k + p] : b[p * s.n + j];
        sum += x * y;
      }
      c[i * s.n + j] = static_cast<float>(beta == 0 ? sum : beta * c[i * s.n + j] + sum);
    }
  }
  return c;
}

TEST(CpuGemm, MatchesAFloat64ReferenceForEveryTransposeAndEdge) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<Shape> shapes;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int m : {1, 3, 4, 16, 33}) {
        for (int n : {1, 10, 32, 64, 65}) {
          for (int k : {1, 7, 8, 31, 64, 257, 300}) shapes.push_back({ta, tb, m, n, k});
        }
      }
    }
  }
  // The MLP's layers at a rank's batch of 16: forward, weight gradient, input gradient.
  for (auto [in, out] : {std::pair{784, 256}, {256, 128}, {128, 10}}) {
    shapes.push_back({false, false, 16, out, in});
    shapes.push_back({true, false, in, out, 16});
    shapes.push_back({false, true, 16, in, out});
  }
  for (const Shape& s : shapes) {
    for (float beta : {0.0f, 1.0f, 0.5f}) {
      std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
      for (float& x : a) x = uniform(rng);
      for (float& x : b) x = uniform(rng);
      // With beta 0, C is not read (as in BLAS): NaN there must not show.
      for (float& x : c) x = beta == 0 ? std::numeric_limits<float>::quiet_NaN() : uniform(rng);
      const std::vector<float> want = Reference(s, a, b, beta, c);
      CpuGemm(s.trans_a, s.trans_b, s.m, s.n, s.k, a.data(), b.data(), beta, c.data());
      for (size_t i = 0; i < c.size(); ++i) {
        ASSERT_NEAR(c[i], want[i], 1e-5 * (s.k + 1))
            << "trans_a=" << s.trans_a << " trans_b=" << s.trans_b << " m=" << s.m << " n=" << s.n
            << " k=" << s.k << " beta=" << beta << " at " << i;
      }
    }
  }
}

// Rows [first, first + m) of the sum over the ranks of X_q^T dY_q, as the ranks
// multiply out their rows of a weight gradient: the very floats of computing
// each rank's whole product and adding them in rank order, for the MLP's
// widths, edge shapes, and a rank without samples.
TEST(CpuGemmSumOfTransposed, GivesTheFloatsOfAddingEachProductInOrder) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  struct Case {
    int in, out, first, m;
    std::vector<int> ks;  // each rank's samples
  };
  const std::vector<Case> cases = {{784, 256, 196, 16, {16, 16, 16, 16}},
                                   {256, 128, 0, 64, {22, 21, 21}},
                                   {128, 10, 120, 8, {16, 16}},
                                   {33, 65, 3, 13, {7, 0, 256}},
                                   {5, 3, 0, 5, {1}},
                                   {40, 32, 8, 16, {0, 0}}};
  for (const Case& c : cases) {
    std::vector<std::vector<float>> x(c.ks.size()), dy(c.ks.size());
    std::vector<TransposedTerm> terms;
    for (size_t q = 0; q < c.ks.size(); ++q) {
      // A rank without samples still has its slot (one row here, never read).
      const size_t rows = std::max(c.ks[q], 1);
      x[q].resize(rows * c.in);
      dy[q].resize(rows * c.out);
      for (float& v : x[q]) v = uniform(rng);
      for (float& v : dy[q]) v = uniform(rng) * 1e3f;  // so that the order shows
      terms.push_back({x[q].data() + c.first, c.in, dy[q].data(), c.ks[q]});
    }
    // One by one: each whole product, then its rows added in order.
    std::vector<float> want(static_cast<size_t>(c.m) * c.out, 0.0f), product(c.in * c.out);
    bool first = true;
    for (size_t q = 0; q < c.ks.size(); ++q) {
      if (c.ks[q] == 0) continue;
      CpuGemm(true, false, c.in, c.out, c.ks[q], x[q].data(), dy[q].data(), 0.0f, product.data());
      for (size_t i = 0; i < want.size(); ++i) {
        const float p = product[static_cast<size_t>(c.first) * c.out + i];
        want[i] = first ? p : want[i] + p;
      }
      first = false;
    }
    std::vector<float> got(want.size(), std::numeric_limits<float>::quiet_NaN());
    CpuGemmSumOfTransposed(c.m, c.out, terms, got.data());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << "in=" << c.in << " out=" << c.out << " first=" << c.first
                                 << " m=" << c.m << " at " << i;
    }
  }
}

}  // namespace
}  // namespace dlp::fmnist
