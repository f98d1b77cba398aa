// dlp artifacts on the Slurm backend: every task gets DLP_OUTPUT_DIR in the
// shared job folder, and list/get read it there, checksums checked, links
// refused. Skips without the test cluster.
#include "contract/sha256.h"
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

class SlurmArtifactsTest : public ::testing::TestWithParam<std::string> {
 protected:
  SlurmEnv env_{GetParam()};
};

TEST_P(SlurmArtifactsTest, ListAndGetFromTheSharedFolder) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string file = env_.WriteJob(
      "keep", {"/bin/sh", "-c",
               "printf rank-$RANK > \"$DLP_OUTPUT_DIR/rank-$RANK.txt\"; "
               "ln -sf /etc/passwd \"$DLP_OUTPUT_DIR/passwd\""},
      2);
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string id = SlurmEnv::IdFrom(r);

  RunResult list = env_.Dlp({"artifacts", "list", id, "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  nlohmann::json j = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << list.out;
  ASSERT_EQ(j["artifacts"].size(), 2u) << list.out;
  EXPECT_EQ(j["artifacts"][1]["path"], "rank-1.txt");
  EXPECT_EQ(j["artifacts"][1]["sha256"], contract::Sha256Hex("rank-1"));

  const std::string out = env_.dir().Join("out");
  RunResult got = env_.Dlp({"artifacts", "get", id, "-o", out});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(ReadFileOrEmpty(out + "/rank-0.txt"), "rank-0");
  EXPECT_EQ(env_.Dlp({"artifacts", "get", id, "passwd", "-o", out}).exit_code, 3);
  EXPECT_EQ(env_.Dlp({"artifacts", "get", id, "../spec.json", "-o", out}).exit_code, 2);
}

INSTANTIATE_TEST_SUITE_P(Transports, SlurmArtifactsTest, ::testing::Values("cli"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dlp::testing
