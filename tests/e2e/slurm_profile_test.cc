// `dlp profile` on the Slurm backend: a 2-task training through srun traces
// every rank into the job's folder on the shared filesystem, and the backend
// reads them back from there.
#include <unistd.h>

#include <set>

#include "slurm_harness.h"

namespace dlp::testing {
namespace {

TEST(SlurmProfileTest, TwoTaskTrainingIsProfiledFromTheJobFolder) {
  SlurmEnv env("cli");
  DLP_SKIP_WITHOUT_SLURM(env);
  if (access(BinPath("fmnist-train").c_str(), X_OK) != 0 ||
      access(BinPath("dlp-run").c_str(), X_OK) != 0) {
    GTEST_SKIP() << "fmnist-train or dlp-run is not built";
  }
  std::string file = env.WriteJob(
      "fmnist-profile",
      {BinPath("fmnist-train"), "--epochs", "1", "--batch", "32", "--limit-train", "256",
       "--limit-test", "64", "--device", "cpu", "--seed", "1"},
      2, {}, {{"framework", "pytorch"}});
  RunResult r = env.Dlp({"submit", file, "--wait", "-q"}, absl::Seconds(240));
  const std::string id = SlurmEnv::IdFrom(r);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << env.Dlp({"logs", id}).out;

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

TEST(SlurmProfileTest, JobWithoutTracesSaysSo) {
  SlurmEnv env("cli");
  DLP_SKIP_WITHOUT_SLURM(env);
  std::string file = env.WriteJob("untraced", {"true"});
  RunResult r = env.Dlp({"submit", file, "--wait", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  RunResult profile = env.Dlp({"profile", SlurmEnv::IdFrom(r)});
  EXPECT_NE(profile.exit_code, 0) << profile.out;
  EXPECT_TRUE(absl::StrContains(profile.err, "no trace files")) << profile.err;
}

}  // namespace
}  // namespace dlp::testing
