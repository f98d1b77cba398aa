// Restart policy on the Slurm backend: the batch script runs one srun step
// per attempt inside the allocation, with DLP_RESTART_COUNT raised each time.
// Through both transports (sbatch and slurmrestd). Skips without the cluster.
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

class SlurmRestartTest : public ::testing::TestWithParam<std::string> {
 protected:
  SlurmEnv env_{GetParam()};
};

nlohmann::json OnFailure(int max_restarts) {
  return {{"restartPolicy", {{"policy", "OnFailure"}, {"maxRestarts", max_restarts}}}};
}

TEST_P(SlurmRestartTest, FailedFirstAttemptIsRestartedAndSucceeds) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  // The job's workdir is the test's folder: the marker survives the attempt.
  std::string file = env_.WriteJob(
      "flaky",
      {"/bin/sh", "-c",
       "if [ -f attempted ]; then echo \"second attempt restart=$DLP_RESTART_COUNT\"; exit 0; fi\n"
       "touch attempted; echo \"first attempt restart=$DLP_RESTART_COUNT\"; exit 1"},
      1, {}, OnFailure(2));
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  const std::string id = SlurmEnv::IdFrom(r);
  RunResult logs = env_.Dlp({"logs", id});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << logs.out;
  nlohmann::json job = env_.Status(id);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["restartCount"], 1) << job.dump();
  EXPECT_EQ(job["exitCode"], 0) << job.dump();

  RunResult worker = env_.Dlp({"logs", id, "--replica", "worker-0"});
  const size_t first = worker.out.find("first attempt restart=0");
  const size_t second = worker.out.find("second attempt restart=1");
  ASSERT_NE(first, std::string::npos) << worker.out;
  ASSERT_NE(second, std::string::npos) << worker.out;
  EXPECT_LT(first, second) << worker.out;
  // The batch script says why it restarted.
  EXPECT_TRUE(absl::StrContains(logs.out, "attempt 0 exited with code 1; restart 1 of 2"))
      << logs.out;
  // A lost allocation (node failure, preemption) is Slurm's to restart.
  RunResult show = ::dlp::testing::Run({"scontrol", "show", "job", id}, env_.Options());
  EXPECT_TRUE(absl::StrContains(show.out, "Requeue=1")) << show.out << show.err;
}

TEST_P(SlurmRestartTest, AlwaysFailingJobExhaustsItsRestarts) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob(
      "hopeless", {"/bin/sh", "-c", "echo \"try $DLP_RESTART_COUNT\"; exit 3"}, 1, {},
      OnFailure(2));
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  const std::string id = SlurmEnv::IdFrom(r);
  RunResult logs = env_.Dlp({"logs", id});
  // As on the local backend: the failed job's exit status, its code in status.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err << logs.out;
  nlohmann::json job = env_.Status(id);
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["state"], "Failed") << job.dump();
  EXPECT_EQ(job["exitCode"], 3) << job.dump();
  EXPECT_EQ(job["restartCount"], 2) << job.dump();
  for (const char* line : {"try 0", "try 1", "try 2", "no restarts left"}) {
    EXPECT_TRUE(absl::StrContains(logs.out, line)) << line << " missing in\n" << logs.out;
  }
  EXPECT_FALSE(absl::StrContains(logs.out, "try 3")) << logs.out;
  EXPECT_EQ(env_.Dlp({"wait", id}).exit_code, 1);
}

TEST_P(SlurmRestartTest, NeverPolicyRunsOnceAndIsNotRequeued) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  std::string file = env_.WriteJob("once", {"/bin/sh", "-c", "echo ran; exit 2"});
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string id = SlurmEnv::IdFrom(r);
  nlohmann::json job = env_.Status(id);
  EXPECT_EQ(job["exitCode"], 2) << job.dump();
  EXPECT_EQ(job["restartCount"], 0) << job.dump();
  // Slurm itself may not requeue it either: sbatch --no-requeue. (slurmrestd
  // 22.05 ignores "requeue": false; a requeued script then fails at once,
  // having no restart left.)
  if (GetParam() == "cli") {
    RunResult show = ::dlp::testing::Run({"scontrol", "show", "job", id}, env_.Options());
    EXPECT_TRUE(absl::StrContains(show.out, "Requeue=0")) << show.out << show.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, SlurmRestartTest, ::testing::Values("cli", "rest"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dlp::testing
