// Remote ranks through the ssh command line (with a stand-in ssh that runs the
// remote command on this machine, so quoting and --exec-rank are exercised
// without sshd; tests/runtime/launch/netns_ssh_integration_test.cc uses real sshd), the start
// timeout, and the Slurm mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "launch_test_util.h"
#include "rendezvous/store.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(RemoteRanks, RunThroughSshWithQuotedEnvironment) {
  TempDir dir;
  RunOptions options;
  options.env["DLP_SSH"] = FakeSsh(dir, kRunLastArg);
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "-np", "2", "-H", "localhost:1,192.0.2.7:1", "--workdir", dir.path(), "--", "sh",
       "-c", "echo \"$RANK $DLP_HOST_ID it's $(pwd)\"; echo to-err >&2"},
      options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[0] 0 localhost it's " + dir.path() + "\n"));
  EXPECT_THAT(r.out, HasSubstr("[1] 1 192.0.2.7 it's " + dir.path() + "\n"));
  EXPECT_THAT(r.err, HasSubstr("[1] to-err\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("dlp-run:ready")));
}

TEST(RemoteRanks, RemoteSignalDeathAndLostHostAreNamed) {
  TempDir dir;
  RunOptions options;
  options.env["DLP_SSH"] = FakeSsh(dir, kRunLastArg);
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "-np", "2", "-H", "localhost:1,192.0.2.7:1", "--", "sh", "-c",
       "if [ $RANK = 1 ]; then kill -9 $$; fi; exec sleep 100"},
      options);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("rank 1 (rank-1) on host 192.0.2.7 exited with code 137 (killed by signal 9"));
  options.env["DLP_SSH"] = FakeSsh(dir, "echo 'connection lost' >&2; exit 255");
  r = ::dlp::testing::Run({DlpRun(), "-np", "2", "-H", "localhost:1,192.0.2.7:1", "--", "sleep", "100"},
                          options);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("host 192.0.2.7 stopped answering"));
}

TEST(RemoteRanks, StartTimeoutNamesTheRankThatNeverStarted) {
  TempDir dir;
  RunOptions options;
  options.env["DLP_SSH"] = FakeSsh(dir, "exec sleep 100");
  options.timeout = absl::Seconds(30);
  RunResult r = ::dlp::testing::Run({DlpRun(), "-np", "2", "-H", "localhost:1,192.0.2.7:1",
                                     "--start-timeout", "0.5", "--grace-period", "1", "--",
                                     "sleep", "100"},
                                    options);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("rendezvous did not complete within 500ms: rank 1 (rank-1) on "
                               "host 192.0.2.7 has not started"));
}

TEST(ExecRank, ClosedChannelStopsTheCommand) {
  TempDir dir;
  // stdin is a pipe that dlp-run --exec-rank watches; when the launcher side
  // closes it, the command's process group is stopped.
  RunOptions options;
  options.env["DLP_SSH"] = FakeSsh(dir, kRunLastArg);
  options.timeout = absl::Seconds(30);
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "-np", "2", "-H", "localhost:1,192.0.2.7:1", "--grace-period", "2", "--", "sh",
       "-c", "if [ $RANK = 0 ]; then while [ ! -s " + dir.path() + "/remote ]; do sleep 0.01; done; exit 4; fi; "
       "echo $$ > " + dir.path() + "/remote.tmp; mv " + dir.path() + "/remote.tmp " + dir.path() +
       "/remote; exec sleep 100"},
      options);
  EXPECT_EQ(r.exit_code, 1);
  const int remote = ReadPid(dir.Join("remote"));
  ASSERT_GT(remote, 0);
  EXPECT_TRUE(Eventually([&] { return ProcessGone(remote); }));
}

// The job's secret, as a batch script exports it to every task.
constexpr char kSecret[] =
    "5555555555555555555555555555555555555555555555555555555555555555";

TEST(Slurm, RankEnvironmentFromSlurmVariables) {
  RunOptions options;
  options.env = {{"SLURM_PROCID", "3"},        {"SLURM_NTASKS", "4"},
                 {"SLURM_LOCALID", "1"},       {"SLURM_NODEID", "1"},
                 {"SLURM_JOB_ID", "1234"},     {"SLURM_STEP_NODELIST", "node[07-08],gpu1"},
                 {"SLURM_NODELIST", "ignored"}, {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
                 {"SLURM_STEP_NUM_NODES", "2"}, {"DLP_RDZV_SECRET", kSecret}};
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "--framework", "tensorflow", "--", "sh", "-c",
       "echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $NODE_RANK $MASTER_ADDR $MASTER_PORT "
       "$DLP_STORE_ADDR; echo $TF_CONFIG"},
      options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Ranks exec the command: the output is not prefixed.
  EXPECT_THAT(r.out, HasSubstr("3 4 1 2 1 node07 21235 node07:21234\n"));
  EXPECT_THAT(r.out, HasSubstr("\"task\":{\"index\":3,\"type\":\"worker\"}"));
}

TEST(Slurm, KeepsTheReplicaIdentityTheBatchScriptSet) {
  RunOptions options;
  options.env = {{"SLURM_PROCID", "1"},          {"SLURM_NTASKS", "2"},
                 {"SLURM_LOCALID", "1"},         {"SLURM_STEP_NODELIST", "localhost"},
                 {"SLURM_JOB_ID", "77"},         {"DLP_ROLE", "ps"},
                 {"DLP_REPLICA_INDEX", "0"},     {"DLP_REPLICA", "ps-0"},
                 {"DLP_RESTART_COUNT", "2"},   {"DLP_RDZV_SECRET", kSecret}};
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "--", "sh", "-c", "echo $RANK $DLP_ROLE $DLP_REPLICA_INDEX $DLP_REPLICA $DLP_RESTART_COUNT"},
      options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 ps 0 ps-0 2\n");
}

TEST(Slurm, TaskWithoutTheJobSecretIsRefused) {
  // Another task could never prove it to rank 0's store: fail at once, saying why.
  RunOptions options;
  options.env = {
      {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_NODELIST", "localhost"}};
  options.unset_env = {"DLP_RDZV_SECRET"};
  RunResult r = ::dlp::testing::Run({DlpRun(), "--", "true"}, options);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("DLP_RDZV_SECRET is not set"));
}

TEST(Slurm, RankZeroHostsTheStore) {
  auto secret = runtime::JobSecret::Generate();
  ASSERT_TRUE(secret.ok());
  auto probe = runtime::TcpStoreServer::Start("127.0.0.1", 0, *secret);
  ASSERT_TRUE(probe.ok());
  const int port = (*probe)->port();
  (*probe)->Stop();
  probe->reset();
  RunOptions options;
  options.env = {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_LOCALID", "0"},
                 {"SLURM_STEP_NODELIST", "localhost"}, {"DLP_RDZV_SECRET", secret->Hex()}};
  // The command reaches the store through DLP_STORE_ADDR while rank 0 runs.
  RunResult r = ::dlp::testing::Run(
      {DlpRun(), "--rdzv-port", absl::StrCat(port), "--", "bash", "-c",
       "echo $DLP_STORE_ADDR; exec 3<>/dev/tcp/127.0.0.1/" + absl::StrCat(port) + " && echo reached; exit 5"},
      options);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("localhost:", port, "\nreached\n")));
}

}  // namespace
}  // namespace dlp::testing
