// dlp's allreduce on float32, out of place. Under dlp-run (RANK is set) each
// process is one rank; otherwise the program starts --ranks ranks itself
// around a TcpStoreServer, with the same environment dlp-run gives. The
// algorithm "shared" is the automatic choice with both buffers in shared
// memory (dlp_shared_alloc), where large allreduces go zero-copy; "kernel" is
// that path's reduction alone between the same buffers (ReduceKernel).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "comm/algorithms/channels.h"
#include "comm/communicator.h"
#include "comm/algorithms/reduce_to_each.h"
#include "comm/transports/shared_window.h"
#include "comm/algorithms/zero_copy.h"
#include "local_ranks.h"

namespace {

using dlp::runtime::Communicator;
using dlp::runtime::SharedWindow;

// Untimed calls of each size first: enough for the automatic choice to have
// measured its candidates and settled (allreduce_tuner.h), so that the
// figures are its steady state, as in a training run's thousands of calls.
constexpr int kWarmups = dlp::runtime::AllreduceTuner::kMostTrialCalls + 1;

// The algorithms to compare: DLP_BENCH_ALGOS ("auto ring shared"), else DLP_COMM_ALGO
// or auto. Each gets its own communicator; their calls alternate, so that a
// machine whose load changes during the run affects them alike.
std::vector<std::string> Algorithms() {
  const char* list = std::getenv("DLP_BENCH_ALGOS");
  const char* one = std::getenv("DLP_COMM_ALGO");
  std::vector<std::string> out;
  std::string text = list != nullptr ? list : one != nullptr ? one : "auto";
  for (size_t at = 0; at < text.size();) {
    size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// "dlp" for the automatic choice, "dlp_ring" and so on for a forced one.
std::string Label(const std::string& algo) { return algo == "auto" ? "dlp" : "dlp_" + algo; }

// The zero-copy path's reduction without the allreduce around it: the ranks
// that claim blocks there (ClaimsBlocks, one a core) each reduce a contiguous
// share of the buffer, a block at a time, from every rank's send buffer into
// every rank's receive buffer (ReduceAllStreamedToEach), in as many parts on
// as many threads as that path uses (SplitOverChannels); the caller's barrier
// follows. Every input byte is read once and every output byte written once:
// what this host's memory allows an allreduce between shared buffers.
void ReduceKernel(const SharedWindow& w, size_t most, size_t count, int rank, int channels) {
  const int n = w.size();
  const int workers = dlp::runtime::ClaimingRanks(n);
  if (!dlp::runtime::ClaimsBlocks(rank, n, workers)) return;
  int share = 0;  // this rank's place among the claiming ranks
  for (int r = 0; r < rank; ++r) share += dlp::runtime::ClaimsBlocks(r, n, workers) ? 1 : 0;
  const size_t block = dlp::runtime::ZeroCopyBlockBytes(workers < n) / sizeof(float);
  const size_t first = count * static_cast<size_t>(share) / static_cast<size_t>(workers);
  const size_t last = count * static_cast<size_t>(share + 1) / static_cast<size_t>(workers);
  const auto reduce = [&](size_t from, size_t to) {
    std::vector<const char*> sources(static_cast<size_t>(n));
    std::vector<char*> results(static_cast<size_t>(n));
    for (size_t c0 = from; c0 < to; c0 += block) {
      for (int j = 0; j < n; ++j) {
        const float* send = reinterpret_cast<const float*>(w.block(j));
        sources[static_cast<size_t>(j)] = reinterpret_cast<const char*>(send + c0);
        // The ranks after this one first, as the zero-copy path writes.
        const int dest = (rank + 1 + j) % n;
        results[static_cast<size_t>(j)] =
            reinterpret_cast<char*>(reinterpret_cast<float*>(w.block(dest)) + most + c0);
      }
      dlp::runtime::ReduceAllStreamedToEach(results, sources, std::min(block, to - c0), DLP_FLOAT32,
                                            DLP_SUM);
    }
  };
  (void)dlp::runtime::SplitOverChannels(last - first, sizeof(float), channels,
                                        [&](int, size_t begin, size_t end) {
                                          reduce(first + begin, first + end);
                                          return absl::OkStatus();
                                        });
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "dlp bench: %s\n", std::string(s.message()).c_str());
  return 1;
}

int RunRank(const bench::Args& args) {
  std::vector<std::unique_ptr<Communicator>> comms;
  const std::vector<std::string> algos = Algorithms();
  // Each algorithm's send and receive buffers (of the largest size).
  std::vector<float*> sends, recvs;
  std::vector<std::vector<float>> own;
  std::vector<std::shared_ptr<dlp::runtime::SharedWindow>> windows;
  const size_t most = args.max_bytes / sizeof(float);
  for (const std::string& algo : algos) {
    const bool shared = algo == "shared" || algo == "kernel";
    setenv("DLP_COMM_ALGO", shared ? "auto" : algo.c_str(), 1);
    auto comm = Communicator::FromEnv();
    if (!comm.ok()) return Fail(comm.status());
    if (shared) {
      auto window = (*comm)->AllocateShared(2 * most * sizeof(float));
      if (!window.ok()) return Fail(window.status());
      sends.push_back(reinterpret_cast<float*>((*window)->block((*comm)->rank())));
      recvs.push_back(sends.back() + most);
      windows.push_back(*window);
    } else {
      own.emplace_back(2 * most);
      sends.push_back(own.back().data());
      recvs.push_back(own.back().data() + most);
      windows.push_back(nullptr);
    }
    comms.push_back(std::move(*comm));
  }
  const int rank = comms[0]->rank(), size = comms[0]->size();
  size_t total_wrong = 0;
  for (size_t bytes : bench::Sizes(args)) {
    size_t count = bytes / sizeof(float);
    for (float* send : sends) {
      for (size_t i = 0; i < count; ++i) send[i] = bench::Input(rank, i);
    }
    std::vector<std::vector<double>> times(comms.size());
    std::vector<int64_t> wrong(comms.size(), 0);
    const int iters = bench::Iterations(args, bytes);
    for (int it = 0; it < kWarmups + iters; ++it) {
      for (size_t a = 0; a < comms.size(); ++a) {
        Communicator& c = *comms[a];
        std::fill(recvs[a], recvs[a] + count, 0.0f);
        if (!c.Barrier().ok()) return 1;
        auto start = std::chrono::steady_clock::now();
        absl::Status s;
        if (algos[a] == "kernel") {
          ReduceKernel(*windows[a], most, count, rank, c.channels());
          s = c.Barrier();
        } else {
          s = c.Allreduce(sends[a], recvs[a], count, DLP_FLOAT32, DLP_SUM);
        }
        std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
        if (!s.ok()) return Fail(s);
        double slowest = d.count();
        if (!c.Allreduce(&slowest, &slowest, 1, DLP_FLOAT64, DLP_MAX).ok()) return 1;
        if (it >= kWarmups) times[a].push_back(slowest);
        if (it == kWarmups + iters - 1)
          wrong[a] = static_cast<int64_t>(bench::CountWrong(recvs[a], count, size));
      }
    }
    for (size_t a = 0; a < comms.size(); ++a) {
      if (!comms[a]->Allreduce(&wrong[a], &wrong[a], 1, DLP_INT64, DLP_SUM).ok()) return 1;
      total_wrong += static_cast<size_t>(wrong[a]);
      if (rank == 0) {
        bench::PrintRow(Label(algos[a]).c_str(), size, bytes, bench::Median(times[a]),
                        static_cast<size_t>(wrong[a]));
      }
    }
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunOnLocalRanks(bench::ParseArgs(argc, argv), RunRank);
}
