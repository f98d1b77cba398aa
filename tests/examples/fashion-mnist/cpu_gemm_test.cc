// The trainer's CPU GEMM against a float64 reference, for every transpose, beta
// and the edge shapes of its tiles (rows and columns that do not fill one, a k
// that does not fill a vector), including the trainer's own layer shapes.
#include "cpu_gemm.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dlp::fmnist
