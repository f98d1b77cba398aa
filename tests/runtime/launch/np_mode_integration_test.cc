// dlp-run -np N: the torchrun-like mode, driven through the real binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "launch_test_util.h"
#include "support/temp_dir.h"

namespace dlp::testing {
using dlp::testing::Run;
namespace {

using ::testing::HasSubstr;

std::map<std::string, std::string> ParseEnvDump(const std::string& text) {
  std::map<std::string, std::string> env;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

TEST(NpMode, EveryRankGetsTorchrunAndDlpVariables) {
  TempDir dir;
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "4", "--", "sh", "-c", "env > " + dir.path() + "/env-$RANK"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string master_port;
  for (int rank = 0; rank < 4; ++rank) {
    auto env = ParseEnvDump(ReadFileOrEmpty(dir.Join(absl::StrCat("env-", rank))));
    EXPECT_EQ(env["RANK"], absl::StrCat(rank));
    EXPECT_EQ(env["DLP_RANK"], absl::StrCat(rank));
    EXPECT_EQ(env["LOCAL_RANK"], absl::StrCat(rank));
    EXPECT_EQ(env["WORLD_SIZE"], "4");
    EXPECT_EQ(env["DLP_WORLD_SIZE"], "4");
    EXPECT_EQ(env["LOCAL_WORLD_SIZE"], "4");
    EXPECT_EQ(env["NODE_RANK"], "0");
    EXPECT_EQ(env["MASTER_ADDR"], "127.0.0.1");
    EXPECT_EQ(env["DLP_RESTART_COUNT"], "0");
    EXPECT_EQ(env["DLP_RDZV_ROUND"], "0");
    EXPECT_EQ(env["DLP_REPLICA"], absl::StrCat("rank-", rank));
    EXPECT_THAT(env["DLP_STORE_ADDR"], HasSubstr("127.0.0.1:"));
    EXPECT_FALSE(env["MASTER_PORT"].empty());
    if (rank == 0) master_port = env["MASTER_PORT"];
    EXPECT_EQ(env["MASTER_PORT"], master_port);
  }
}

TEST(NpMode, OutputLinesArePrefixedWithTheRank) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "3", "--", "sh", "-c", "echo hi $RANK; echo oops >&2; printf x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("[", rank, "] hi ", rank, "\n")));
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("[", rank, "] x\n")));
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("[", rank, "] oops\n")));
  }
}

TEST(NpMode, LogDirHoldsOneFilePerRank) {
  TempDir dir;
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "2", "--log-dir", dir.Join("logs"), "--", "sh", "-c", "echo r$RANK"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFileOrEmpty(dir.Join("logs/rank-1.log")), HasSubstr("Z O r1\n"));
  EXPECT_EQ(r.out, "");
}

TEST(NpMode, TensorflowGetsTfConfig) {
  TempDir dir;
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "3", "--framework", "tensorflow", "--", "sh", "-c",
                     "printf '%s' \"$TF_CONFIG\" > " + dir.path() + "/tf-$RANK"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < 3; ++rank) {
    nlohmann::json tf = ReadJson(dir.Join(absl::StrCat("tf-", rank)));
    ASSERT_FALSE(tf.is_null()) << rank;
    EXPECT_EQ(tf["task"]["type"], "worker");
    EXPECT_EQ(tf["task"]["index"], rank);
    ASSERT_EQ(tf["cluster"]["worker"].size(), 3u);
    EXPECT_THAT(tf["cluster"]["worker"][rank].get<std::string>(), HasSubstr("localhost:"));
    EXPECT_FALSE(tf["cluster"].contains("chief"));
  }
}

TEST(NpMode, HorovodAndJaxVariables) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "2", "--framework", "horovod", "--", "sh", "-c",
                     "echo $HOROVOD_RANK/$HOROVOD_SIZE/$HOROVOD_LOCAL_RANK/$HOROVOD_LOCAL_SIZE"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[1] 1/2/1/2\n"));
  r = ::dlp::testing::Run({DlpRun(), "-np", "2", "--framework", "jax", "--", "sh", "-c",
           "echo $JAX_PROCESS_ID/$JAX_NUM_PROCESSES/$JAX_COORDINATOR_ADDRESS"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[1] 1/2/127.0.0.1:"));
}

TEST(NpMode, FailureStopsTheOthersAndNamesTheRank) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "4", "--grace-period", "1", "--", "sh", "-c",
                     "if [ $RANK = 3 ]; then exit 9; fi; exec sleep 100"},
                    {.timeout = absl::Seconds(30)});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("rank 3 (rank-3) on host localhost exited with code 9"));
}

TEST(NpMode, SignalDeathIsNamed) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "2", "--", "sh", "-c",
                     "if [ $RANK = 1 ]; then kill -9 $$; fi; exec sleep 100"},
                    {.timeout = absl::Seconds(30)});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("rank 1 (rank-1) on host localhost was killed by signal 9"));
}

TEST(NpMode, MaxRestartsRestartsAndSucceeds) {
  TempDir dir;
  const std::string marker = dir.Join("marker");
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "2", "--max-restarts", "1", "--", "sh", "-c",
                     "if [ $RANK = 0 ] && [ ! -e " + marker + " ]; then touch " + marker +
                         "; exit 1; fi; echo done $DLP_RESTART_COUNT"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[0] done 1\n"));
  EXPECT_THAT(r.out, HasSubstr("[1] done 1\n"));
  // Without restarts the same failure is final.
  r = ::dlp::testing::Run({DlpRun(), "-np", "1", "--", "false"});
  EXPECT_EQ(r.exit_code, 1);
}

TEST(NpMode, RejectsTooFewSlotsAndMissingCommand) {
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "3", "-H", "localhost:2", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("only 2 slots"));
  r = ::dlp::testing::Run({DlpRun(), "-np", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no command"));
}

TEST(NpMode, HostsWithSlotsGiveLocalRanksPerHost) {
  TempDir dir;
  // Both names are this machine, so the ranks are forked; placement still
  // follows the host list.
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "4", "-H", "localhost:2,127.0.0.1:2", "--", "sh", "-c",
                     "echo $RANK $LOCAL_RANK $LOCAL_WORLD_SIZE $NODE_RANK $DLP_HOST_ID"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[1] 1 1 2 0 localhost\n"));
  EXPECT_THAT(r.out, HasSubstr("[2] 2 0 2 1 127.0.0.1\n"));
}

}  // namespace
}  // namespace dlp::testing
