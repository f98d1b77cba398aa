// Allreduces whose buffers lie in shared blocks (dlp_shared_alloc) on every
// rank run zero-copy: every dtype and op, in place and not, checked against
// the float64 reference and byte for byte across ranks; a rank whose buffers
// are elsewhere makes every rank take the staged path, with the same results.
#include <cstring>
#include <vector>

#include "comm/communicator.h"
#include "comm/algorithms/zero_copy.h"
#include "dlp/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_check.h"
#include "runtime/rank_harness.h"
#include "support/temp_dir.h"

namespace dlp::runtime {
namespace {

using testing::CheckResult;
using testing::RankGroup;
using testing::RunRanks;

constexpr int kRanks = 3;

// `channels` 0: the communicator's own choice (DLP_COMM_CHANNELS unset).
absl::StatusOr<std::unique_ptr<Communicator>> Join(int rank, int port, int channels = 0) {
  auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
  if (!store.ok()) return store.status();
  CommOptions o = testing::TestOptions(rank, kRanks, "shm");
  o.channels = channels;
  return Communicator::Create(o, std::move(*store));
}

// Just past the threshold, and not a multiple of the ranks.
size_t CountFor(dlp_dtype t) { return kZeroCopyMinBytes / DTypeSize(t) + 7; }

std::string CaseName(const std::string& dir, dlp_dtype t, dlp_op op) {
  return absl::StrFormat("%s/%s-%s", dir, DTypeName(t), OpName(op));
}

TEST(CommZeroCopyTest, EveryDTypeAndOpBetweenSharedBuffers) {
  dlp::testing::TempDir dir;
  RankGroup group = RunRanks(kRanks, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, port);
    if (!comm.ok()) return comm.status();
    const size_t most = 2 * (kZeroCopyMinBytes + 7 * sizeof(double));
    auto window = (*comm)->AllocateShared(most);
    if (!window.ok()) return window.status();
    char* const block = (*window)->block(rank);
    uint64_t seed = 100;
    int64_t expected_zero_copy = 0;
    for (dlp_dtype t : testing::kAllDTypes) {
      for (dlp_op op : testing::kAllOps) {
        ++seed;
        const size_t count = CountFor(t), bytes = count * DTypeSize(t);
        const bool in_place = seed % 2 == 0;
        char* send = block;
        char* out = in_place ? send : block + bytes;
        testing::FillInput(send, count, seed, rank, t);
        DLP_RETURN_IF_ERROR((*comm)->Allreduce(send, out, count, t, op));
        if ((*comm)->zero_copy_allreduces() != ++expected_zero_copy) {
          return absl::InternalError(absl::StrCat(DTypeName(t), " ", OpName(op), ": staged"));
        }
        DLP_RETURN_IF_ERROR(CheckResult(out, count, seed, rank, kRanks, t, op));
        testing::WriteFile(absl::StrFormat("%s-%d.bin", CaseName(dir.path(), t, op), rank), out,
                           bytes);
      }
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
  for (dlp_dtype t : testing::kAllDTypes) {
    for (dlp_op op : testing::kAllOps) {
      EXPECT_EQ(testing::CompareAcrossRanks(CaseName(dir.path(), t, op), kRanks, DTypeSize(t)), "");
    }
  }
}

// Every slice many blocks long, in place and not; each rank reducing on one
// thread, and on several (as with cores to spare: DLP_COMM_CHANNELS=4).
class CommZeroCopyThreadsTest : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Channels, CommZeroCopyThreadsTest, ::testing::Values(1, 4));

TEST_P(CommZeroCopyThreadsTest, ResultsOfManyBlocksAreAlikeInPlaceAndNot) {
  dlp::testing::TempDir dir;
  RankGroup group = RunRanks(kRanks, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, port, GetParam());
    if (!comm.ok()) return comm.status();
    if ((*comm)->channels() != GetParam()) return absl::InternalError("channels not as asked");
    const size_t count = 8 * kZeroCopyMinBytes / sizeof(float) + 7;
    const size_t bytes = count * sizeof(float);
    auto window = (*comm)->AllocateShared(2 * bytes);
    if (!window.ok()) return window.status();
    char* const send = (*window)->block(rank);
    for (bool in_place : {false, true}) {
      char* out = in_place ? send : send + bytes;
      testing::FillInput(send, count, 5, rank, DLP_FLOAT32);
      DLP_RETURN_IF_ERROR((*comm)->Allreduce(send, out, count, DLP_FLOAT32, DLP_SUM));
      DLP_RETURN_IF_ERROR(CheckResult(out, count, 5, rank, kRanks, DLP_FLOAT32, DLP_SUM));
      testing::WriteFile(absl::StrFormat("%s/%d-%d.bin", dir.path(), in_place, rank), out, bytes);
    }
    if ((*comm)->zero_copy_allreduces() != 2) return absl::InternalError("staged");
    // A claiming rank reduces on every channel: its share (8 MiB over at most
    // 3 claiming ranks) is well above 512 KiB a thread.
    const int want = ClaimsBlocks(rank, kRanks, ClaimingRanks(kRanks)) ? GetParam() : 0;
    if ((*comm)->zero_copy_threads() != want) {
      return absl::InternalError(
          absl::StrCat("reduced on ", (*comm)->zero_copy_threads(), " threads, not ", want));
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
  for (int in_place : {0, 1}) {
    EXPECT_EQ(testing::CompareAcrossRanks(absl::StrFormat("%s/%d", dir.path(), in_place), kRanks,
                                          sizeof(float)),
              "");
  }
}

TEST(CommZeroCopyTest, OneRankOutsideSharedMemoryMakesEveryRankStage) {
  RankGroup group = RunRanks(kRanks, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, port);
    if (!comm.ok()) return comm.status();
    const size_t count = CountFor(DLP_FLOAT32), bytes = count * sizeof(float);
    auto window = (*comm)->AllocateShared(bytes);
    if (!window.ok()) return window.status();
    // Rank 1's buffer is its own; small ones stay staged whatever their place.
    std::vector<char> own(bytes);
    char* buf = rank == 1 ? own.data() : (*window)->block(rank);
    for (size_t n : {count, size_t{1000}}) {
      testing::FillInput(buf, n, n, rank, DLP_FLOAT32);
      DLP_RETURN_IF_ERROR((*comm)->Allreduce(buf, buf, n, DLP_FLOAT32, DLP_SUM));
      DLP_RETURN_IF_ERROR(CheckResult(buf, n, n, rank, kRanks, DLP_FLOAT32, DLP_SUM));
    }
    if ((*comm)->zero_copy_allreduces() != 0) return absl::InternalError("went zero-copy");
    // With every rank's buffer shared, the same call goes zero-copy.
    char* shared = (*window)->block(rank);
    testing::FillInput(shared, count, 7, rank, DLP_FLOAT32);
    DLP_RETURN_IF_ERROR((*comm)->Allreduce(shared, shared, count, DLP_FLOAT32, DLP_MAX));
    DLP_RETURN_IF_ERROR(CheckResult(shared, count, 7, rank, kRanks, DLP_FLOAT32, DLP_MAX));
    if ((*comm)->zero_copy_allreduces() != 1) return absl::InternalError("staged");
    // A buffer running past the end of the block is not in shared memory.
    DLP_RETURN_IF_ERROR(
        (*comm)->Allreduce(shared + 64, own.data(), count - 16, DLP_FLOAT32, DLP_SUM));
    if ((*comm)->zero_copy_allreduces() != 1) return absl::InternalError("past the block");
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

}  // namespace
}  // namespace dlp::runtime
