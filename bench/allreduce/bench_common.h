// Shared by the allreduce benchmarks: sizes, iteration counts, the input
// pattern and its exact sum, and one output row per size in the form
// run.sh reads:  ROW impl ranks bytes time_us algbw_GBps busbw_GBps wrong
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bench {

struct Args {
  int ranks = 2;
  size_t min_bytes = 1 << 20;
  size_t max_bytes = 256 << 20;
  int iters = 0;  // 0: scale with the size
  int threads = 1;  // memcpy_bench: copies at once, one a thread
};

inline Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    long long v = std::atoll(argv[i + 1]);
    if (k == "--ranks") a.ranks = static_cast<int>(v);
    if (k == "--min-bytes") a.min_bytes = static_cast<size_t>(v);
    if (k == "--max-bytes") a.max_bytes = static_cast<size_t>(v);
    if (k == "--iters") a.iters = static_cast<int>(v);
    if (k == "--threads") a.threads = std::clamp(static_cast<int>(v), 1, 64);
  }
  return a;
}

// Every factor of four within the range: 4 KiB, 16 KiB ... 64 MiB, 256 MiB.
inline std::vector<size_t> Sizes(const Args& a) {
  std::vector<size_t> out;
  for (size_t s = a.min_bytes; s <= a.max_bytes; s *= 4) out.push_back(s);
  return out;
}

// Below 1 MiB a call takes microseconds: many more calls for a stable median.
inline int Iterations(const Args& a, size_t bytes) {
  if (a.iters > 0) return a.iters;
  return static_cast<int>(
      std::clamp<size_t>((512u << 20) / bytes, 5, bytes < (1 << 20) ? 200 : 20));
}

// Small integers: every sum is exact in float32, so any difference is wrong.
inline float Input(int rank, size_t i) { return static_cast<float>(rank + 1 + static_cast<int>(i % 7)); }
inline float Expected(int ranks, size_t i) {
  return static_cast<float>(ranks * (ranks + 1) / 2 + ranks * static_cast<int>(i % 7));
}

inline size_t CountWrong(const float* out, size_t count, int ranks) {
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) wrong += out[i] != Expected(ranks, i);
  return wrong;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// busbw = S * 2(N-1)/N / t, as nccl-tests defines it for allreduce.
inline void PrintRow(const char* impl, int ranks, size_t bytes, double seconds, size_t wrong) {
  double algbw = static_cast<double>(bytes) / seconds / 1e9;
  double busbw = algbw * 2.0 * (ranks - 1) / ranks;
  std::printf("ROW %s %d %zu %.2f %.3f %.3f %zu\n", impl, ranks, bytes, seconds * 1e6, algbw, busbw,
              wrong);
  std::fflush(stdout);
}

}  // namespace bench
