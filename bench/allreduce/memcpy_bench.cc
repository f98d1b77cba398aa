// memcpy bandwidth on this machine: the ceiling for any shared-memory
// allreduce. Reported as algbw = busbw = bytes / time of one copy.
#include <chrono>
#include <vector>

#include "bench_common.h"

int main(int argc, char** argv) {
  bench::Args args = bench::ParseArgs(argc, argv);
  for (size_t bytes : bench::Sizes(args)) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    std::vector<double> times;
    for (int it = 0; it < bench::Iterations(args, bytes) + 1; ++it) {
      auto start = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), bytes);
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      if (it > 0) times.push_back(d.count());
    }
    size_t wrong = dst[bytes - 1] != 1;
    double t = bench::Median(times);
    std::printf("ROW memcpy 1 %zu %.1f %.3f %.3f %zu\n", bytes, t * 1e6, bytes / t / 1e9,
                bytes / t / 1e9, wrong);
  }
  return 0;
}
