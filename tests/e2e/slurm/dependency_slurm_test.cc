// spec.dependsOn on a real single-node Slurm: sbatch --dependency=afterok
// holds the dependent until its dependency succeeded, and
// --kill-on-invalid-dep cancels it when it failed (pipelines:
// pipeline_slurm_test.cc).
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

TEST(SlurmDependencyTest, AfterOkWaitsForSuccessAndCancelsOnFailure) {
  SlurmEnv env("cli");
  DLP_SKIP_WITHOUT_SLURM(env);
  const std::string go = env.dir().Join("go");
  const std::string first_file = env.WriteJob(
      "first", {"/bin/sh", "-c", "while [ ! -e " + go + " ]; do sleep 0.1; done; echo first"});
  RunResult first = env.Dlp({"submit", first_file, "-q"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string first_id = SlurmEnv::IdFrom(first);
  // By name: the newest dlp job called "first".
  const std::string second_file =
      env.WriteJob("second", {"/bin/sh", "-c", "echo second ran"}, 1, {},
                   {{"dependsOn", {{{"job", "first"}, {"condition", "succeeded"}}}}});
  RunResult second = env.Dlp({"submit", second_file, "-q"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::string second_id = SlurmEnv::IdFrom(second);
  RunOptions options = env.Options();
  RunResult shown = dlp::testing::Run({"scontrol", "show", "job", second_id}, options);
  EXPECT_TRUE(absl::StrContains(shown.out, "Dependency=afterok:" + first_id)) << shown.out;
  EXPECT_EQ(env.Status(second_id).value("state", ""), "Queued");
  env.dir().WriteFile("go", "go");
  RunResult waited = env.Dlp({"wait", second_id}, absl::Seconds(180));
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  EXPECT_EQ(env.Status(first_id).value("state", ""), "Succeeded");

  const std::string failing_file = env.WriteJob("failing", {"/bin/sh", "-c", "exit 3"});
  RunResult failing = env.Dlp({"submit", failing_file, "-q"});
  ASSERT_EQ(failing.exit_code, 0) << failing.err;
  const std::string failing_id = SlurmEnv::IdFrom(failing);
  const std::string never_file = env.WriteJob("never", {"/bin/sh", "-c", "echo never"}, 1, {},
                                              {{"dependsOn", {{{"job", failing_id}}}}});
  RunResult never = env.Dlp({"submit", never_file, "-q"});
  ASSERT_EQ(never.exit_code, 0) << never.err;
  RunResult ended = env.Dlp({"wait", SlurmEnv::IdFrom(never)}, absl::Seconds(180));
  EXPECT_EQ(ended.exit_code, 5) << ended.out << ended.err;  // Cancelled by Slurm
  EXPECT_EQ(env.Status(SlurmEnv::IdFrom(never)).value("reason", ""),
            "dependency job " + failing_id + " failed");
}

}  // namespace
}  // namespace dlp::testing
