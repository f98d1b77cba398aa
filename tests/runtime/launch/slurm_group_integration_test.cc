// dlp-run as the Slurm backend runs it: one real dlp-run per "Slurm task",
// started here with the variables srun would set, on one group file. Rank 0
// coordinates the rounds; restarts, logs, status and exit codes must be those
// of dlp-run under dlpd. No Slurm needed.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "contract/group.h"
#include "contract/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/free_port.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class SlurmGroupTest : public ::testing::Test {
 protected:
  // Runs `tasks` dlp-runs on `group` as srun would start them; their results.
  std::vector<RunResult> RunTasks(const contract::Group& group, int tasks, int requeues = 0) {
    const std::string path = dir_.Join("group.json");
    EXPECT_TRUE(contract::WriteGroupFile(path, group).ok());
    const std::string port = absl::StrCat(FreePort());
    std::vector<std::unique_ptr<Background>> running;
    for (int k = 0; k < tasks; ++k) {
      RunOptions options;
      options.cwd = dir_.path();
      options.env = {{"SLURM_PROCID", absl::StrCat(k)},
                     {"SLURM_NTASKS", absl::StrCat(tasks)},
                     {"SLURM_LOCALID", absl::StrCat(k)},
                     {"SLURM_NODEID", "0"},
                     {"SLURM_JOB_ID", "4242"},
                     {"SLURM_JOB_NODELIST", "localhost"},
                     {"SLURM_STEP_NODELIST", "localhost"},
                     {"SLURMD_NODENAME", "localhost"},
                     {"SLURM_RESTART_COUNT", absl::StrCat(requeues)},
                     // sbatch exports the submitter's environment: Slurm's id wins.
                     {"DLP_JOB_ID", "submitters-own"},
                     // What the batch script exports to every task.
                     {"DLP_RDZV_SECRET", std::string(64, '5')}};
      options.unset_env = {"DLP_TRACE_DIR", "DLP_RESTART_COUNT"};
      running.push_back(std::make_unique<Background>(
          std::vector<std::string>{BinPath("dlp-run"), "--group", path, "--log-dir",
                                   dir_.Join("logs"), "--status-file", dir_.Join("status.json"),
                                   "--trace-dir", dir_.Join("traces"), "--rdzv-port", port,
                                   "--grace-period", "5"},
          options));
    }
    std::vector<RunResult> results;
    for (auto& task : running) results.push_back(task->Wait(absl::Seconds(90)));
    return results;
  }

  contract::GroupStatus Status() {
    auto status = contract::ReadStatusFile(dir_.Join("status.json"));
    EXPECT_TRUE(status.ok() && status->has_value()) << status.status();
    return status.ok() && *status ? **status : contract::GroupStatus();
  }

  static contract::Group Workers(int count, const std::string& script,
                                 contract::RestartPolicy policy, int max_restarts) {
    contract::Group group;
    group.roles = {{"worker", count, {"/bin/sh", "-c", script}, {{"GREETING", "hi"}}, 0}};
    group.restart_policy = policy;
    group.max_restarts = max_restarts;
    return group;
  }

  TempDir dir_;
};

TEST_F(SlurmGroupTest, AFailedRankRestartsEveryTaskAndTheSecondRoundSucceeds) {
  auto results = RunTasks(
      Workers(2,
              "echo \"$GREETING $DLP_REPLICA rank=$RANK/$WORLD_SIZE round=$DLP_RESTART_COUNT "
              "job=$DLP_JOB_ID traces=$DLP_TRACE_DIR\"\n"
              "if [ \"$RANK\" = 1 ] && [ ! -f marker ]; then touch marker; exit 3; fi\n"
              "exec sleep 0",
              contract::RestartPolicy::kOnFailure, 2),
      2);
  for (const RunResult& r : results) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  EXPECT_THAT(results[0].err, HasSubstr("attempt 0 exited with code 3; restart 1 of 2"));
  const std::string w1 = ReadFileOrEmpty(dir_.Join("logs/worker-1.log"));
  EXPECT_THAT(w1,
              HasSubstr(" O hi worker-1 rank=1/2 round=0 job=4242 traces=" + dir_.Join("traces")));
  EXPECT_THAT(w1, HasSubstr(" O hi worker-1 rank=1/2 round=1"));
  const std::string w0 = ReadFileOrEmpty(dir_.Join("logs/worker-0.log"));
  EXPECT_THAT(w0, HasSubstr("hi worker-0 rank=0/2 round=1"));
  contract::GroupStatus status = Status();
  EXPECT_EQ(status.state, "Succeeded");
  EXPECT_EQ(status.restarts, 1);
  ASSERT_EQ(status.replicas.size(), 2u);
  EXPECT_EQ(status.replicas[1].name, "worker-1");
  EXPECT_EQ(status.replicas[1].exit_code, 0);
  EXPECT_EQ(status.replicas[1].host, "localhost");
}

TEST_F(SlurmGroupTest, ExhaustedRestartsEndEveryTaskWithTheFailedRanksCode) {
  auto results = RunTasks(
      Workers(2, "echo \"try $DLP_RESTART_COUNT\"; exit 3", contract::RestartPolicy::kOnFailure, 2),
      2);
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(results[0].err, HasSubstr("attempt 2 exited with code 3; no restarts left"));
  contract::GroupStatus status = Status();
  EXPECT_EQ(status.state, "Failed");
  EXPECT_EQ(status.restarts, 2);
  EXPECT_THAT(status.reason, HasSubstr("exited with code 3"));
  // In each attempt the rank that failed first wrote its line; the other may
  // have been stopped before it wrote.
  const std::string logs = ReadFileOrEmpty(dir_.Join("logs/worker-0.log")) +
                           ReadFileOrEmpty(dir_.Join("logs/worker-1.log"));
  for (const char* line : {"try 0", "try 1", "try 2"}) EXPECT_THAT(logs, HasSubstr(line));
  EXPECT_THAT(logs, ::testing::Not(HasSubstr("try 3")));
}

TEST_F(SlurmGroupTest, ExitCodePolicyDoesNotRestartAPlainFailure) {
  auto results = RunTasks(Workers(2, "if [ \"$RANK\" = 0 ]; then exit 2; fi; exec sleep 60",
                                  contract::RestartPolicy::kExitCode, 3),
                          2);
  // Rank 1 is stopped (SIGTERM) once rank 0 failed; both report the job's code.
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(Status().restarts, 0);
  EXPECT_EQ(Status().replicas[1].signal, SIGTERM);
}

TEST_F(SlurmGroupTest, ARankThatCannotStartSaysWhyInTheGroupsStatus) {
  contract::Group group;
  group.roles = {{"worker", 2, {"no-such-program-xyz"}, {}, 0}};
  group.restart_policy = contract::RestartPolicy::kNever;
  auto results = RunTasks(group, 2);
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 127) << r.out << r.err;
  contract::GroupStatus status = Status();
  EXPECT_EQ(status.state, "Failed");
  EXPECT_THAT(status.reason, HasSubstr("could not start: cannot execute no-such-program-xyz"));
  // Whichever exit event rank 0 read first carried the reason through the store.
  int said = 0;
  for (const contract::RankStatus& r : status.replicas) {
    if (absl::StrContains(r.reason, "could not start: cannot execute no-such-program-xyz")) ++said;
  }
  EXPECT_GE(said, 1);
}

TEST_F(SlurmGroupTest, ARequeueContinuesTheCountAndStopsWhenNoneIsLeft) {
  contract::GroupStatus previous;
  previous.state = "Running";
  previous.restarts = 2;
  dir_.WriteFile("status.json", contract::StatusToJson(previous));
  auto results =
      RunTasks(Workers(2, "echo ran", contract::RestartPolicy::kOnFailure, 2), 2, /*requeues=*/1);
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(results[0].err, HasSubstr("no restarts left after the requeue"));
  EXPECT_EQ(ReadFileOrEmpty(dir_.Join("logs/worker-0.log")), "");
  EXPECT_EQ(Status().state, "Failed");

  previous.restarts = 0;
  dir_.WriteFile("status.json", contract::StatusToJson(previous));
  results = RunTasks(
      Workers(2, "echo \"ran round $DLP_RESTART_COUNT\"", contract::RestartPolicy::kOnFailure, 2),
      2, /*requeues=*/1);
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(ReadFileOrEmpty(dir_.Join("logs/worker-1.log")), HasSubstr("ran round 1"));
  EXPECT_EQ(Status().restarts, 1);
}

// successPolicy {roles: [chief]}: rank 0 decides "done" once the chief
// exited 0; every task stops its worker and exits 0.
TEST_F(SlurmGroupTest, SuccessPolicyEndsEveryTaskOnceTheChiefSucceeded) {
  contract::Group group;
  group.roles = {{"chief", 1,
                  {"/bin/sh", "-c",
                   "while [ ! -f worker-0.pid ] || [ ! -f worker-1.pid ]; do sleep 0.05; done"},
                  {}, 0},
                 {"worker", 2,
                  {"/bin/sh", "-c",
                   "echo $$ > worker-$DLP_REPLICA_INDEX.pid; while true; do sleep 1; done"},
                  {}, 0}};
  group.success_roles = {"chief"};
  auto results = RunTasks(group, 3);
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(results[0].err, HasSubstr("every replica of chief exited 0 (successPolicy)"));
  contract::GroupStatus status = Status();
  EXPECT_EQ(status.state, "Succeeded");
  EXPECT_EQ(status.reason,
            "every replica of chief exited 0 (successPolicy); the other replicas were stopped");
  ASSERT_EQ(status.replicas.size(), 3u);
  for (int rank = 1; rank <= 2; ++rank) {
    EXPECT_EQ(status.replicas[rank].state, "Succeeded");
    EXPECT_EQ(status.replicas[rank].reason,
              "stopped: every replica of chief exited 0 (successPolicy)");
    int pid = 0;
    ASSERT_TRUE(absl::SimpleAtoi(
        absl::StripAsciiWhitespace(ReadFileOrEmpty(dir_.Join(absl::StrCat(
            "worker-", rank - 1, ".pid")))),
        &pid));
    EXPECT_NE(kill(pid, 0), 0) << "worker-" << rank - 1 << " still runs";
  }
}

TEST_F(SlurmGroupTest, TooFewTasksForTheGroupIsASetupError) {
  auto results = RunTasks(Workers(3, "true", contract::RestartPolicy::kNever, 0), 1);
  EXPECT_EQ(results[0].exit_code, 2);
  EXPECT_THAT(results[0].err, HasSubstr("the group has 3 ranks but Slurm started 1 tasks"));
}

}  // namespace
}  // namespace dlp::testing
