// `dlp profile` on the Slurm backend for a job that wrote no traces (the
// profile of a traced training is in slurm_train_test.cc).
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

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
