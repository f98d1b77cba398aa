// Gloo's gloo::AllreduceRingChunked on float32 (in place; the input is
// rewritten before every run), ranks started here with a FileStore
// rendezvous and the TCP transport on loopback.
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <vector>

#include "bench_common.h"
#include "fork_ranks.h"

namespace {

int RunRank(const bench::Args& args, int rank, const std::string& dir) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore file_store(dir);
  gloo::rendezvous::PrefixStore store("bench", file_store);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, args.ranks);
  context->connectFullMesh(store, device);
  gloo::BarrierAllToAll barrier(context);
  size_t total_wrong = 0;
  for (size_t bytes : bench::Sizes(args)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> buf(count);
    std::vector<float*> ptrs{buf.data()};
    gloo::AllreduceRingChunked<float> allreduce(context, ptrs, static_cast<int>(count));
    std::vector<double> times;
    int iters = bench::Iterations(args, bytes);
    for (int it = 0; it < iters + 1; ++it) {
      for (size_t i = 0; i < count; ++i) buf[i] = bench::Input(rank, i);
      barrier.run();
      auto start = std::chrono::steady_clock::now();
      allreduce.run();
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      if (it > 0) times.push_back(d.count());
    }
    size_t wrong = bench::CountWrong(buf.data(), count, args.ranks);
    total_wrong += wrong;
    // Rank 0's median; the ring ends at about the same time everywhere.
    if (rank == 0) bench::PrintRow("gloo", args.ranks, bytes, bench::Median(times), wrong);
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Args args = bench::ParseArgs(argc, argv);
  char tmpl[] = "/tmp/gloo-bench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  const int failed =
      bench::ForkBoundRanks(args.ranks, [&](int r) { return RunRank(args, r, dir); });
  std::string rm = "rm -rf " + dir;
  return (std::system(rm.c_str()) == 0 && failed == 0) ? 0 : 1;
}
