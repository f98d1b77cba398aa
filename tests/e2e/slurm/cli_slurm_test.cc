// Every dlp verb against a real single-node Slurm, through both transports
// (sbatch/squeue/scancel and slurmrestd). Skips without the test cluster.
#include <sys/stat.h>

#include "slurm_harness.h"

namespace dlp::testing {
namespace {

class SlurmCliTest : public ::testing::TestWithParam<std::string> {
 protected:
  SlurmEnv env_{GetParam()};
};

TEST_P(SlurmCliTest, SubmitWaitStatusListLogs) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob("hello", {"/bin/sh", "-c", "echo hello from rank $RANK of $WORLD_SIZE; echo oops >&2"}, 2);
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string id = SlurmEnv::IdFrom(r);
  ASSERT_FALSE(id.empty()) << r.out;

  nlohmann::json job = env_.Status(id);
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["exitCode"], 0) << job.dump();
  EXPECT_EQ(job["name"], "hello");
  ASSERT_EQ(job["replicas"].size(), 2u) << job.dump();

  RunResult list = env_.Dlp({"list", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(absl::StrContains(list.out, "\"" + id + "\"")) << list.out;

  RunResult logs = env_.Dlp({"logs", id});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_TRUE(absl::StrContains(logs.out, "hello from rank 0 of 2")) << logs.out;
  EXPECT_TRUE(absl::StrContains(logs.out, "hello from rank 1 of 2")) << logs.out;
  RunResult one = env_.Dlp({"logs", id, "--replica", "worker-1"});
  EXPECT_TRUE(absl::StrContains(one.out, "hello from rank 1 of 2")) << one.out;
  EXPECT_FALSE(absl::StrContains(one.out, "hello from rank 0 of 2")) << one.out;
  EXPECT_TRUE(absl::StrContains(one.out + one.err, "oops")) << one.out;
}

TEST_P(SlurmCliTest, LogsLeaveMetricLinesOutUnlessAsked) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file =
      env_.WriteJob("metrics", {"/bin/sh", "-c",
                                "echo epoch 1; echo 'DLP_METRIC loss=0.5 step=1'; echo finished; "
                                "echo 'DLP_METRIC loss=0.25 step=2'"});
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string id = SlurmEnv::IdFrom(r);
  // --tail counts the lines printed, not the metric lines left out.
  RunResult logs = env_.Dlp({"logs", id, "--replica", "worker-0", "--tail", "2"});
  EXPECT_EQ(logs.out, "epoch 1\nfinished\n") << logs.err;
  RunResult all = env_.Dlp({"logs", id, "--replica", "worker-0", "--metrics"});
  EXPECT_EQ(all.out, "epoch 1\nDLP_METRIC loss=0.5 step=1\nfinished\nDLP_METRIC loss=0.25 step=2\n")
      << all.err;
  RunResult metrics = env_.Dlp({"metrics", id, "-o", "csv"});
  EXPECT_TRUE(absl::StrContains(metrics.out, "worker-0,loss,2,0.25,")) << metrics.out;
}

TEST_P(SlurmCliTest, FailingJobGivesExitCodeThree) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob("fails", {"/bin/sh", "-c", "echo about to fail; exit 3"});
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json job = env_.Status(SlurmEnv::IdFrom(r));
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["state"], "Failed");
  EXPECT_EQ(job["exitCode"], 3) << job.dump();
  EXPECT_TRUE(absl::StrContains(job["reason"].get<std::string>(), "worker-0")) << job.dump();
  RunResult wait = env_.Dlp({"wait", SlurmEnv::IdFrom(r)});
  EXPECT_EQ(wait.exit_code, 1) << wait.err;
}

TEST_P(SlurmCliTest, FollowStreamsTheLogsUntilTheEnd) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file =
      env_.WriteJob("follow", {"/bin/sh", "-c", "for i in 1 2 3; do echo line-$i; done"});
  RunResult r = env_.Dlp({"submit", file, "--follow"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line : {"line-1", "line-2", "line-3"}) {
    EXPECT_TRUE(absl::StrContains(r.out, line)) << r.out << r.err;
  }
}

TEST_P(SlurmCliTest, CancelStopsARunningJob) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob("sleeper", {"/bin/sh", "-c", "echo started; exec sleep 300"});
  RunResult r = env_.Dlp({"submit", file, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id = SlurmEnv::IdFrom(r);
  ASSERT_TRUE(Eventually(
      [&] { return absl::StrContains(env_.Dlp({"logs", id}).out, "started"); },
      absl::Seconds(60)));
  // A follower ends by itself once the job is cancelled.
  std::vector<std::string> argv = {BinPath("dlp"), "logs", "-f", id};
  Background follower(argv, env_.Options());
  RunResult cancel = env_.Dlp({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  RunResult wait = env_.Dlp({"wait", id});
  EXPECT_EQ(wait.exit_code, 5) << wait.out << wait.err;
  EXPECT_EQ(env_.Status(id)["state"], "Cancelled");
  RunResult followed = follower.Wait(absl::Seconds(30));
  EXPECT_FALSE(followed.timed_out);
  EXPECT_TRUE(absl::StrContains(followed.out, "started")) << followed.out;
  // Cancelling a finished job is not an error.
  EXPECT_EQ(env_.Dlp({"cancel", id}).exit_code, 0);
}

TEST_P(SlurmCliTest, HostileTextArrivesIntactAndRunsNothing) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string hostile =
      "it's \"quoted\" $(touch PWNED-1) `touch PWNED-2`; touch PWNED-3\nsecond line ${HOME} \\ '";
  std::string file = env_.WriteJob(
      "quoting",
      {"/bin/sh", "-c", "printf '[%s]\\n' \"$1\"; printf '<%s>\\n' \"$HOSTILE\"", "sh", hostile},
      1, {{"HOSTILE", hostile}});
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  RunResult logs = env_.Dlp({"logs", SlurmEnv::IdFrom(r)});
  std::vector<std::string> lines = absl::StrSplit(hostile, '\n');
  EXPECT_TRUE(absl::StrContains(logs.out, "[" + lines[0])) << logs.out;
  EXPECT_TRUE(absl::StrContains(logs.out, lines[1] + "]")) << logs.out;
  EXPECT_TRUE(absl::StrContains(logs.out, "<" + lines[0])) << logs.out;
  EXPECT_TRUE(absl::StrContains(logs.out, lines[1] + ">")) << logs.out;
  struct stat st;
  for (const char* name : {"PWNED-1", "PWNED-2", "PWNED-3"}) {
    EXPECT_NE(stat(env_.dir().Join(name).c_str(), &st), 0) << name << " was created";
  }
}

TEST_P(SlurmCliTest, BadPartitionIsAUsageErrorQuotingSlurm) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob("nowhere", {"true"});
  RunResult r = env_.Dlp({"submit", file, "--set", "spec.queue=no-such-partition"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "Invalid partition")) << r.err;
}

TEST_P(SlurmCliTest, TimeLimitFailsTheJobWithReasonTimeLimit) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  // Slurm counts time limits in minutes and checks them every 30 s or so.
  std::string file = env_.WriteJob("too-slow", {"/bin/sh", "-c", "exec sleep 600"}, 1, {},
                                   {{"activeDeadlineSeconds", 1}});
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"}, absl::Seconds(240));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json job = env_.Status(SlurmEnv::IdFrom(r));
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["state"], "Failed");
  EXPECT_EQ(job["reason"], "TimeLimit") << job.dump();
}

INSTANTIATE_TEST_SUITE_P(Transports, SlurmCliTest, ::testing::Values("cli", "rest"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dlp::testing
