// Collectives on GPU buffers (label gpu). CUDA is only touched inside forked
// ranks, never in the test process, so that forking stays safe. Without a
// device every test is skipped.
#include <cuda_runtime.h>

#include <vector>

#include "comm/communicator.h"
#include "gtest/gtest.h"
#include "runtime/collective_check.h"
#include "runtime/rank_harness.h"
#include "support/cuda_device.h"

namespace dlp::runtime {
namespace {

using ::dlp::testing::HasCudaDevice;
using testing::RankGroup;
using testing::RunRanks;

#define SKIP_WITHOUT_GPU() \
  if (!HasCudaDevice()) GTEST_SKIP() << "no CUDA device"

absl::Status Cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", cudaGetErrorString(e)));
}

// Allreduces `count` elements of every dtype and op from device memory and
// checks the result against the float64 reference.
absl::Status DeviceAllreduce(Communicator& comm, size_t count, const char* want_path) {
  if (std::string(comm.device_path()) != want_path) {
    return absl::InternalError(absl::StrCat("device path ", comm.device_path(), ", want ", want_path));
  }
  uint64_t seed = 5;
  for (dlp_dtype t : {DLP_FLOAT32, DLP_FLOAT64, DLP_FLOAT16, DLP_BFLOAT16, DLP_INT32, DLP_INT64}) {
    for (dlp_op op : {DLP_SUM, DLP_AVG, DLP_MIN, DLP_MAX}) {
      ++seed;
      size_t bytes = count * DTypeSize(t);
      std::vector<char> host(bytes);
      testing::FillInput(host.data(), count, seed, comm.rank(), t);
      void* dev = nullptr;
      if (auto s = Cuda(cudaMalloc(&dev, bytes), "cudaMalloc"); !s.ok()) return s;
      (void)cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice);
      absl::Status s = comm.Allreduce(dev, dev, count, t, op);
      (void)cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost);
      cudaFree(dev);
      if (!s.ok()) return s;
      if (auto c = testing::CheckResult(host.data(), count, seed, comm.rank(), comm.size(), t, op); !c.ok()) {
        return c;
      }
    }
  }
  return absl::OkStatus();
}

TEST(CommGpuTest, OneRankUsesNccl) {
  SKIP_WITHOUT_GPU();
  RankGroup group = RunRanks(1, [](int rank, int port) -> absl::Status {
    auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
    if (!store.ok()) return store.status();
    auto comm = Communicator::Create(testing::TestOptions(rank, 1, "auto"), std::move(*store));
    if (!comm.ok()) return comm.status();
    return DeviceAllreduce(**comm, 100003, "nccl");
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

TEST(CommGpuTest, RanksSharingOneGpuStageThroughHost) {
  SKIP_WITHOUT_GPU();
  for (const char* transport : {"shm", "tcp"}) {
    RankGroup group = RunRanks(3, [&](int rank, int port) -> absl::Status {
      auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
      if (!store.ok()) return store.status();
      auto comm = Communicator::Create(testing::TestOptions(rank, 3, transport), std::move(*store));
      if (!comm.ok()) return comm.status();
      if (absl::Status s = DeviceAllreduce(**comm, 70001, "staging"); !s.ok()) return s;
      // Broadcast and allgather on device buffers too.
      std::vector<int32_t> host(3 * 1000);
      for (size_t i = 0; i < 1000; ++i) host[i] = rank == 1 ? static_cast<int32_t>(i) : -1;
      int32_t* dev = nullptr;
      if (auto s = Cuda(cudaMalloc(&dev, host.size() * 4), "cudaMalloc"); !s.ok()) return s;
      (void)cudaMemcpy(dev, host.data(), 4000, cudaMemcpyHostToDevice);
      if (absl::Status s = (*comm)->Broadcast(dev, 1000, DLP_INT32, 1); !s.ok()) return s;
      if (absl::Status s = (*comm)->Allgather(dev, dev, 1000, DLP_INT32); !s.ok()) return s;
      (void)cudaMemcpy(host.data(), dev, host.size() * 4, cudaMemcpyDeviceToHost);
      cudaFree(dev);
      for (size_t i = 0; i < host.size(); ++i) {
        if (host[i] != static_cast<int32_t>(i % 1000)) {
          return absl::InternalError(absl::StrCat("rank ", rank, " index ", i, ": ", host[i]));
        }
      }
      return absl::OkStatus();
    });
    EXPECT_TRUE(group.AllOk()) << transport << group.Describe();
  }
}

}  // namespace
}  // namespace dlp::runtime
