// dlp allreduce on GPU buffers (float32): one rank uses NCCL, several ranks
// sharing one GPU go through host staging. Ranks are forked before CUDA is
// initialised. Prints the same ROW lines as the host benchmarks.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
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
    std::fprintf(stderr, "gpu bench: %s\n", std::string(comm.status().message()).c_str());
    return 1;
  }
  Communicator& c = **comm;
  std::string label = std::string("dlp-gpu-") + c.device_path();
  size_t total_wrong = 0;
  for (size_t bytes : bench::Sizes(args)) {
    size_t count = bytes / sizeof(float);
    std::vector<float> host(count);
    for (size_t i = 0; i < count; ++i) host[i] = bench::Input(c.rank(), i);
    float *send = nullptr, *recv = nullptr;
    if (cudaMalloc(&send, bytes) != cudaSuccess || cudaMalloc(&recv, bytes) != cudaSuccess) return 1;
    cudaMemcpy(send, host.data(), bytes, cudaMemcpyHostToDevice);
    std::vector<double> times;
    for (int it = 0; it < bench::Iterations(args, bytes) + 1; ++it) {
      if (!c.Barrier().ok()) return 1;
      auto start = std::chrono::steady_clock::now();
      absl::Status s = c.Allreduce(send, recv, count, DLP_FLOAT32, DLP_SUM);
      std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      if (!s.ok()) {
        std::fprintf(stderr, "gpu bench: %s\n", std::string(s.message()).c_str());
        return 1;
      }
      double slowest = d.count();
      if (!c.Allreduce(&slowest, &slowest, 1, DLP_FLOAT64, DLP_MAX).ok()) return 1;
      if (it > 0) times.push_back(slowest);
    }
    cudaMemcpy(host.data(), recv, bytes, cudaMemcpyDeviceToHost);
    cudaFree(send);
    cudaFree(recv);
    int64_t wrong = static_cast<int64_t>(bench::CountWrong(host.data(), count, c.size()));
    if (!c.Allreduce(&wrong, &wrong, 1, DLP_INT64, DLP_SUM).ok()) return 1;
    total_wrong += static_cast<size_t>(wrong);
    if (c.rank() == 0) {
      bench::PrintRow(label.c_str(), c.size(), bytes, bench::Median(times), static_cast<size_t>(wrong));
    }
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunOnLocalRanks(bench::ParseArgs(argc, argv), RunRank);
}
