// dlp_shared_alloc: blocks every rank on a host reads and writes in place.
#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "dlp/comm.h"
#include "dlp/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/comm/c_api_rank_env.h"
#include "runtime/rank_harness.h"

namespace dlp::runtime {
namespace {

using testing::Fail;
using ::testing::HasSubstr;
using testing::RankGroup;
using testing::RunRanks;
using testing::SetRankEnv;

// Names in /dev/shm that this process made (NewShmName: /dlp-<pid>-...).
int OwnShmNames() {
  const std::string prefix = absl::StrCat("dlp-", getpid(), "-");
  int n = 0;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  while (const dirent* e = readdir(dir)) n += std::string(e->d_name).rfind(prefix, 0) == 0;
  closedir(dir);
  return n;
}

// Rank r's block: (r + 1) * 1000 bytes, but none for rank 1.
size_t BlockBytes(int rank) { return rank == 1 ? 0 : static_cast<size_t>(rank + 1) * 1000; }

TEST(CommSharedTest, EveryRankReadsAndWritesEveryBlockInPlace) {
  RankGroup group = RunRanks(3, [&](int rank, int port) -> absl::Status {
    SetRankEnv(rank, 3, port, "auto");
    dlp_comm* c = nullptr;
    if (dlp_comm_init_from_env(&c) != 0) return Fail("init");
    const int names_before = OwnShmNames();
    dlp_shared* s = nullptr;
    if (dlp_shared_alloc(c, BlockBytes(rank), &s) != 0) return Fail("dlp_shared_alloc");
    if (OwnShmNames() != names_before)
      return absl::InternalError("a block's name was left in /dev/shm");
    for (int r = 0; r < 3; ++r) {
      size_t bytes = 99;
      auto* p = static_cast<unsigned char*>(dlp_shared_block(s, r, &bytes));
      if (p == nullptr || bytes != BlockBytes(r) || reinterpret_cast<uintptr_t>(p) % 64 != 0) {
        return absl::InternalError(absl::StrCat("block ", r, ": ", bytes, " bytes"));
      }
    }
    size_t bytes = 99;
    if (dlp_shared_block(s, 3, &bytes) != nullptr || bytes != 0 ||
        dlp_shared_block(s, -1, nullptr) != nullptr) {
      return absl::InternalError("a rank outside the group has a block");
    }
    // Each rank fills its own block, then writes its mark into rank 0's.
    auto* own = static_cast<unsigned char*>(dlp_shared_block(s, rank, nullptr));
    std::memset(own, 'a' + rank, BlockBytes(rank));
    if (dlp_barrier(c) != 0) return Fail("barrier");
    static_cast<unsigned char*>(dlp_shared_block(s, 0, nullptr))[rank] =
        static_cast<unsigned char>('x' + rank);
    if (dlp_barrier(c) != 0) return Fail("barrier");
    for (int r = 0; r < 3; ++r) {
      auto* p = static_cast<const unsigned char*>(dlp_shared_block(s, r, nullptr));
      for (size_t i = 0; i < BlockBytes(r); ++i) {
        const unsigned char want = r == 0 && i < 3 ? 'x' + i : 'a' + r;
        if (p[i] != want)
          return absl::InternalError(absl::StrCat("block ", r, " byte ", i, ": ", p[i]));
      }
    }
    if (dlp_barrier(c) != 0) return Fail("barrier");
    // The blocks outlive the communicator.
    dlp_comm_destroy(c);
    if (static_cast<unsigned char*>(dlp_shared_block(s, 2, nullptr))[0] != 'c') {
      return absl::InternalError("block 2 changed after the communicator went");
    }
    dlp_shared_free(s);
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

TEST(CommSharedTest, ASingleRankGetsItsOwnBlock) {
  RankGroup group = RunRanks(1, [&](int, int) -> absl::Status {
    dlp_comm* c = nullptr;
    DLP_RETURN_IF_ERROR(testing::InitSingleRank(&c));
    dlp_shared* s = nullptr;
    if (dlp_shared_alloc(c, 4096, &s) != 0) return Fail("dlp_shared_alloc");
    auto* p = static_cast<int*>(dlp_shared_block(s, 0, nullptr));
    p[1023] = 7;
    dlp_shared_free(s);
    dlp_comm_destroy(c);
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

TEST(CommSharedTest, RanksOnSeveralHostsAreRefused) {
  RankGroup group = RunRanks(2, [&](int rank, int port) -> absl::Status {
    SetRankEnv(rank, 2, port, "tcp");  // one host per rank
    dlp_comm* c = nullptr;
    if (dlp_comm_init_from_env(&c) != 0) return Fail("init");
    dlp_shared* s = nullptr;
    if (dlp_shared_alloc(c, 64, &s) == 0 || s != nullptr) return absl::InternalError("allocated");
    return absl::InternalError(dlp_last_error());
  });
  for (const auto& r : group.ranks) {
    EXPECT_THAT(r.message, HasSubstr("shared memory needs every rank on one host; these 2 ranks "
                                     "are on 2 hosts"));
  }
}

TEST(CommSharedTest, ABlockTooLargeFailsOnItsRankAndIsNamedOnTheOthers) {
  RankGroup group = RunRanks(2, [&](int rank, int port) -> absl::Status {
    SetRankEnv(rank, 2, port, "shm");
    dlp_comm* c = nullptr;
    if (dlp_comm_init_from_env(&c) != 0) return Fail("init");
    dlp_shared* s = nullptr;
    const int rc = dlp_shared_alloc(c, rank == 1 ? SIZE_MAX : 64, &s);
    const std::string message = dlp_last_error();
    // The communicator stays usable.
    if (dlp_barrier(c) != 0) return Fail("barrier after a refused block");
    if (rc == 0) return absl::InternalError("allocated");
    return absl::InternalError(message);
  });
  EXPECT_THAT(group.ranks[1].message,
              HasSubstr("bytes is more shared memory than a block can hold"));
  EXPECT_THAT(group.ranks[0].message, HasSubstr("rank 1 could not make its shared block: "));
  EXPECT_THAT(group.ranks[0].message, HasSubstr("more shared memory than a block can hold"));
}

TEST(CommSharedTest, NullArgumentsAreErrors) {
  dlp_shared* s = nullptr;
  EXPECT_NE(dlp_shared_alloc(nullptr, 64, &s), 0);
  EXPECT_EQ(dlp_shared_block(nullptr, 0, nullptr), nullptr);
  dlp_shared_free(nullptr);
}

}  // namespace
}  // namespace dlp::runtime
