// Data-parallel Fashion-MNIST training as a 2-task Slurm job: srun starts one
// dlp-run per task, which finds the other rank through Slurm's variables, and
// the ranks ring-allreduce their gradients.
#include <unistd.h>

#include "slurm_harness.h"

namespace dlp::testing {
namespace {

TEST(SlurmTrainTest, TwoTaskRingAllreduceTrainingThroughSrun) {
  SlurmEnv env("cli");
  DLP_SKIP_WITHOUT_SLURM(env);
  if (access(BinPath("fmnist-train").c_str(), X_OK) != 0 ||
      access(BinPath("dlp-run").c_str(), X_OK) != 0) {
    GTEST_SKIP() << "fmnist-train or dlp-run is not built";
  }
  std::string file = env.WriteJob(
      "fmnist-slurm",
      {BinPath("fmnist-train"), "--epochs", "1", "--batch", "32", "--limit-train", "1000",
       "--limit-test", "200", "--device", "cpu", "--seed", "1"},
      2, {}, {{"framework", "pytorch"}});
  RunResult r = env.Dlp({"submit", file, "--wait", "-q"}, absl::Seconds(240));
  const std::string id = SlurmEnv::IdFrom(r);
  RunResult logs = env.Dlp({"logs", id});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << logs.out;
  nlohmann::json job = env.Status(id);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  RunResult rank0 = env.Dlp({"logs", id, "--replica", "worker-0"});
  EXPECT_TRUE(absl::StrContains(rank0.out, "test_accuracy")) << logs.out;
  for (const auto& replica : job["replicas"]) {
    EXPECT_EQ(replica["exitCode"], 0) << job.dump();
  }
}

}  // namespace
}  // namespace dlp::testing
