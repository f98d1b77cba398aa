// dlp's allreduce on float32, out of place. Under dlp-run (RANK is set) each
// process is one rank; otherwise the program starts --ranks ranks itself
// around a TcpStoreServer, with the same environment dlp-run gives.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.h"
#include "comm/communicator.h"
#include "local_ranks.h"

namespace {

using dlp::runtime::Communicator;

int RunRank(const bench::Args& args) {
  auto comm = Communicator::FromEnv();
  if (!comm.ok()) {
    std::fprintf(stderr, "dlp bench: %s\n", std::string(comm.status().message()).c_str());
    return 1;
  }
  Communicator& c = **comm;
  size_t total_wrong = 0;
  for (size_t bytes : bench::Sizes(args)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> send(count), recv(count);
    for (size_t i = 0; i < count; ++i) send[i] = bench::Input(c.rank(), i);
    std::vector<double> times;
    int iters = bench::Iterations(args, bytes);
    for (int it = 0; it < iters + 1; ++it) {  // the first is a warm-up
      if (!c.Barrier().ok()) return 1;
      auto start = std::chrono::steady_clock::now();
      absl::Status s = c.Allreduce(send.data(), recv.data(), count, DLP_FLOAT32, DLP_SUM);
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      if (!s.ok()) {
        std::fprintf(stderr, "dlp bench: %s\n", std::string(s.message()).c_str());
        return 1;
      }
      double slowest = d.count();
      if (!c.Allreduce(&slowest, &slowest, 1, DLP_FLOAT64, DLP_MAX).ok()) return 1;
      if (it > 0) times.push_back(slowest);
    }
    int64_t wrong = static_cast<int64_t>(bench::CountWrong(recv.data(), count, c.size()));
    if (!c.Allreduce(&wrong, &wrong, 1, DLP_INT64, DLP_SUM).ok()) return 1;
    total_wrong += static_cast<size_t>(wrong);
    if (c.rank() == 0) {
      bench::PrintRow("dlp", c.size(), bytes, bench::Median(times), static_cast<size_t>(wrong));
    }
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunOnLocalRanks(bench::ParseArgs(argc, argv), RunRank);
}
