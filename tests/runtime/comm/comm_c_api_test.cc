// The C interface, joined from the rank environment as dlp-run sets it.
#include <cstdlib>

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

TEST(CommCApiTest, InitFromEnvAndEveryCollective) {
  for (const char* transport : {"tcp", "shm", "auto"}) {
    RankGroup group = RunRanks(3, [&](int rank, int port) -> absl::Status {
      SetRankEnv(rank, 3, port, transport);
      dlp_comm* c = nullptr;
      if (dlp_comm_init_from_env(&c) != 0) return Fail("init");
      if (dlp_comm_rank(c) != rank || dlp_comm_size(c) != 3) return Fail("rank/size");
      double v[2] = {1.0 * rank, 2.0};
      if (dlp_allreduce(c, v, v, 2, DLP_FLOAT64, DLP_AVG) != 0) return Fail("allreduce");
      if (v[0] != 1.0 || v[1] != 2.0) return absl::InternalError("wrong average");
      int64_t b = rank == 2 ? 42 : 0;
      if (dlp_broadcast(c, &b, 1, DLP_INT64, 2) != 0 || b != 42) return Fail("broadcast");
      int32_t mine = rank * 10, all[3];
      if (dlp_allgather(c, &mine, all, 1, DLP_INT32) != 0) return Fail("allgather");
      if (all[0] != 0 || all[1] != 10 || all[2] != 20)
        return absl::InternalError("wrong allgather");
      // Block j of every rank's input holds j + rank: rank r gets 3r + 0 + 1 + 2.
      float blocks[6];
      for (int j = 0; j < 6; ++j) blocks[j] = static_cast<float>(j / 2 + rank);
      float* own = blocks + 2 * rank;  // in place
      if (dlp_reduce_scatter(c, blocks, own, 2, DLP_FLOAT32, DLP_SUM) != 0) {
        return Fail("reduce-scatter");
      }
      if (own[0] != 3.0f * rank + 3 || own[1] != own[0]) {
        return absl::InternalError("wrong reduce-scatter");
      }
      if (dlp_barrier(c) != 0) return Fail("barrier");
      // Argument errors are reported, and leave the communicator usable.
      if (dlp_allreduce(c, v, v, 1, static_cast<dlp_dtype>(99), DLP_SUM) == 0) {
        return absl::InternalError("bad dtype accepted");
      }
      if (std::string(dlp_last_error()).find("dtype") == std::string::npos) return Fail("message");
      if (dlp_reduce_scatter(c, blocks, own, 2, DLP_FLOAT32, static_cast<dlp_op>(7)) == 0) {
        return absl::InternalError("bad op accepted");
      }
      if (dlp_barrier(c) != 0) return Fail("barrier after argument error");
      dlp_comm_destroy(c);
      return absl::OkStatus();
    });
    EXPECT_TRUE(group.AllOk()) << transport << group.Describe();
  }
}

TEST(CommCApiTest, MissingEnvironmentIsAClearError) {
  RankGroup group = RunRanks(1, [&](int, int) -> absl::Status {
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    dlp_comm* c = nullptr;
    if (dlp_comm_init_from_env(&c) == 0) return absl::InternalError("init succeeded");
    if (std::string(dlp_last_error()).find("RANK is not set") == std::string::npos) {
      return Fail("message");
    }
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

TEST(CommCApiTest, SingleRankNeedsNoStore) {
  RankGroup group = RunRanks(1, [&](int, int) -> absl::Status {
    dlp_comm* c = nullptr;
    DLP_RETURN_IF_ERROR(testing::InitSingleRank(&c));
    float v[3] = {1, 2, 3}, out[3];
    if (dlp_allreduce(c, v, out, 3, DLP_FLOAT32, DLP_SUM) != 0 || out[2] != 3)
      return Fail("allreduce");
    dlp_comm_destroy(c);
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

TEST(CommCApiTest, MissingPeerTimesOutNamingTheKey) {
  // Only rank 0 of 2 starts: the rendezvous names what it waited for.
  RankGroup group = RunRanks(1, [&](int, int port) -> absl::Status {
    SetRankEnv(0, 2, port, "auto");
    setenv("DLP_COMM_TIMEOUT", "1", 1);
    dlp_comm* c = nullptr;
    if (dlp_comm_init_from_env(&c) == 0) return absl::InternalError("init succeeded");
    return absl::InternalError(dlp_last_error());
  });
  ASSERT_FALSE(group.ranks[0].ok);
  EXPECT_THAT(group.ranks[0].message,
              HasSubstr("rendezvous: timed out after 1s waiting for key r2/comm0/host/1"));
}

}  // namespace
}  // namespace dlp::runtime
