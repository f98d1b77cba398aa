// A tiny deterministic RNG (SplitMix64) whose whole state is one integer, so a
// checkpoint can store it and every rank can reproduce the same shuffle.
#pragma once

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace dlp::fmnist {

class Rng {
 public:
  explicit Rng(uint64_t state) : state_(state) {}

  uint64_t state() const { return state_; }

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, n); the slight modulo bias does not matter for shuffling.
  uint64_t Below(uint64_t n) { return Next() % n; }

  // Standard normal (Box-Muller; one of the pair is discarded for simplicity).
  double Normal() {
    double u1 = Uniform();
    while (u1 <= 0.0) u1 = Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // A fresh permutation of 0..n-1 (Fisher-Yates), identical for equal states.
  std::vector<int> Permutation(int n) {
    std::vector<int> p(n);
    std::iota(p.begin(), p.end(), 0);
    for (int i = n - 1; i > 0; --i) {
      const int j = static_cast<int>(Below(static_cast<uint64_t>(i) + 1));
      std::swap(p[i], p[j]);
    }
    return p;
  }

 private:
  uint64_t state_;
};

}  // namespace dlp::fmnist
