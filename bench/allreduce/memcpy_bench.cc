// memcpy bandwidth on this machine: the ceiling for any shared-memory
// allreduce. Reported as algbw = bytes / time of one copy; with --threads N,
// N copies run at once (each a thread with its own buffers), the time is that
// of the slowest and busbw is all of them together: how the machine's memory
// bandwidth grows with cores.
#include <pthread.h>
#include <sched.h>

#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

#include "bench_common.h"

// One core each: woken from the barrier, a thread would otherwise often run on
// the core of the thread that woke it, and the copies would take turns.
void PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int main(int argc, char** argv) {
  bench::Args args = bench::ParseArgs(argc, argv);
  const int n = args.threads;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (n > 1) PinToCpu(0);
  for (size_t bytes : bench::Sizes(args)) {
    std::vector<std::vector<char>> src(n, std::vector<char>(bytes, 1));
    std::vector<std::vector<char>> dst(n, std::vector<char>(bytes, 0));
    const int iterations = bench::Iterations(args, bytes) + 1;
    std::barrier sync(n);
    auto copy = [&](int t) {
      PinToCpu(t % cores);
      for (int it = 0; it < iterations; ++it) {
        sync.arrive_and_wait();
        std::memcpy(dst[t].data(), src[t].data(), bytes);
        sync.arrive_and_wait();
      }
    };
    std::vector<std::thread> others;
    for (int t = 1; t < n; ++t) others.emplace_back(copy, t);
    // Thread 0 copies too, and times each round from barrier to barrier (a
    // lone copy times the copy alone).
    std::vector<double> times;
    for (int it = 0; it < iterations; ++it) {
      if (n > 1) sync.arrive_and_wait();
      auto start = std::chrono::steady_clock::now();
      std::memcpy(dst[0].data(), src[0].data(), bytes);
      if (n > 1) sync.arrive_and_wait();
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      if (it > 0) times.push_back(d.count());
    }
    for (std::thread& t : others) t.join();
    size_t wrong = 0;
    for (int t = 0; t < n; ++t) wrong += dst[t][bytes - 1] != 1;
    double t = bench::Median(times);
    std::printf("ROW memcpy %d %zu %.2f %.3f %.3f %zu\n", n, bytes, t * 1e6, bytes / t / 1e9,
                n * bytes / t / 1e9, wrong);
  }
  return 0;
}
