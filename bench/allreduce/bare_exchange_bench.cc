// The one-shot allreduce with no library around it: each rank writes its S
// bytes into a slot of one shared mapping, raises its flag, spins until every
// peer's flag is up, and sums every slot into its output with dlp's reduction
// kernel. Beside dlp's one-shot calls it shows what dlp's synchronisation and
// bookkeeping add to the data movement; beside Open MPI, what the same moves
// cost without either library. Timed as the other benches time a call: after a
// barrier, the slowest rank's time, the median over the calls.
//
//   bare_exchange_bench --ranks N --min-bytes A --max-bytes B
// Prints `ROW bare N bytes us algbw busbw 0` rows, as bench_common.h does.
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "bench_common.h"
#include "comm/algorithms/reduce.h"
#include "fork_ranks.h"

namespace {

constexpr size_t kLine = 64;
constexpr int kMaxRanks = 16;

// The mapping's head: one cache line per flag, so that no two ranks write one line.
struct alignas(kLine) Line {
  std::atomic<uint64_t> value;
};
struct Control {
  Line flag[kMaxRanks];     // the last round whose slot the rank filled
  Line arrived[kMaxRanks];  // the last barrier the rank reached
  Line took_ns[kMaxRanks];  // the rank's time for the last timed round
};

// With more ranks than CPUs a spinning rank gives its CPU to the peer it waits for.
bool g_yield = false;

void SpinUntilAll(const Line* lines, int ranks, uint64_t at_least) {
  for (int j = 0; j < ranks; ++j) {
    while (lines[j].value.load(std::memory_order_acquire) < at_least) {
      if (g_yield) sched_yield();
      __builtin_ia32_pause();
    }
  }
}

int RunRank(const bench::Args& args, int rank, Control* control, char* slots, size_t slot_bytes) {
  const int n = args.ranks;
  std::vector<float> in(args.max_bytes / sizeof(float)), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = bench::Input(rank, i);
  std::vector<const char*> sources(static_cast<size_t>(n));
  uint64_t round = 0, barrier = 0;
  for (size_t bytes : bench::Sizes(args)) {
    const size_t count = bytes / sizeof(float);
    std::vector<double> times;
    const int iters = bench::Iterations(args, bytes);
    for (int it = 0; it < iters + 1; ++it) {  // the first is a warm-up
      control->arrived[rank].value.store(++barrier, std::memory_order_release);
      SpinUntilAll(control->arrived, n, barrier);
      const auto start = std::chrono::steady_clock::now();
      ++round;
      // Two slots a rank, alternating by round as dlp's segments do (the
      // barrier that ends each round would make one enough here).
      auto slot = [&](int j) {
        return slots + (static_cast<size_t>(j) * 2 + round % 2) * slot_bytes;
      };
      std::memcpy(slot(rank), in.data(), bytes);
      control->flag[rank].value.store(round, std::memory_order_release);
      SpinUntilAll(control->flag, n, round);
      for (int j = 0; j < n; ++j) sources[static_cast<size_t>(j)] = slot(j);
      dlp::runtime::ReduceAll(reinterpret_cast<char*>(out.data()), sources, count, DLP_FLOAT32,
                              DLP_SUM);
      const std::chrono::duration<double, std::nano> took =
          std::chrono::steady_clock::now() - start;
      control->took_ns[rank].value.store(static_cast<uint64_t>(took.count()),
                                         std::memory_order_relaxed);
      control->arrived[rank].value.store(++barrier, std::memory_order_release);
      SpinUntilAll(control->arrived, n, barrier);
      if (it == 0) continue;
      uint64_t slowest = 0;
      for (int j = 0; j < n; ++j) {
        slowest = std::max(slowest, control->took_ns[j].value.load(std::memory_order_relaxed));
      }
      times.push_back(static_cast<double>(slowest) * 1e-9);
    }
    size_t wrong = bench::CountWrong(out.data(), count, n);
    if (rank == 0) bench::PrintRow("bare", n, bytes, bench::Median(times), wrong);
    if (wrong != 0) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Args args = bench::ParseArgs(argc, argv);
  if (args.ranks < 1 || args.ranks > kMaxRanks) {
    std::fprintf(stderr, "bare_exchange_bench: --ranks %d: expected 1 to %d\n", args.ranks,
                 kMaxRanks);
    return 2;
  }
  g_yield = args.ranks > static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const size_t slot_bytes = (args.max_bytes + kLine - 1) / kLine * kLine;
  const size_t total = sizeof(Control) + 2 * static_cast<size_t>(args.ranks) * slot_bytes;
  void* map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 1;
  auto* control = new (map) Control();
  char* slots = static_cast<char*>(map) + sizeof(Control);
  return bench::ForkBoundRanks(
             args.ranks, [&](int r) { return RunRank(args, r, control, slots, slot_bytes); }) == 0
             ? 0
             : 1;
}
