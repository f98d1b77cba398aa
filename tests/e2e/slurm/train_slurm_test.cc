// Data-parallel Fashion-MNIST training as a 2-task Slurm job: srun starts one
// dlp-run per task, which finds the other rank through Slurm's variables, and
// the ranks ring-allreduce their gradients. Every rank traces into the job's
// folder on the shared filesystem, and `dlp profile` reads it back from there.
#include <unistd.h>

#include <set>

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

  const std::string merged = env.dir().Join("merged.json");
  RunResult profile = env.Dlp({"profile", id, "-o", "json", "--trace", merged});
  ASSERT_EQ(profile.exit_code, 0) << profile.out << profile.err;
  nlohmann::json p = nlohmann::json::parse(profile.out, nullptr, false);
  ASSERT_TRUE(p.is_object()) << profile.out;
  EXPECT_EQ(p["ranks"], 2) << profile.out;
  EXPECT_GT(p["allreduce"]["count"].get<int64_t>(), 0) << profile.out;
  EXPECT_GT(p["allreduce"]["bytes"].get<int64_t>(), 0) << profile.out;
  for (const nlohmann::json& rank : p["perRank"]) {
    EXPECT_GT(rank["steps"].get<int>(), 0) << rank.dump();
  }

  // Every allreduce span in the merged trace carries its size, on both ranks.
  nlohmann::json doc = nlohmann::json::parse(ReadFileOrEmpty(merged), nullptr, false);
  ASSERT_TRUE(doc.is_object() && doc["traceEvents"].is_array()) << merged;
  std::set<int> allreduce_ranks;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e.value("name", "") != "allreduce") continue;
    EXPECT_GT(e["args"].value("bytes", int64_t{0}), 0) << e.dump();
    allreduce_ranks.insert(e["pid"].get<int>());
  }
  EXPECT_EQ(allreduce_ranks, (std::set<int>{0, 1}));
}

}  // namespace
}  // namespace dlp::testing
