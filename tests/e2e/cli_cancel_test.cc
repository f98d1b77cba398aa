// `dlp cancel` ends a job's whole process tree, children included.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

TEST(CliCancel, KillsTheWholeProcessTree) {
  CliEnv env;
  const std::string pid_file = env.Work("child.pid");
  // The replica forks a child (in its process group) and records its pid.
  const std::string id = env.Submit(env.WriteJob(
      "tree", "sleep 300 &\necho $! > " + pid_file + ".tmp\nmv " + pid_file + ".tmp " + pid_file +
                  "\nwait"));
  int child = 0;
  ASSERT_TRUE(Eventually([&] {
    child = std::atoi(ReadFileOrEmpty(pid_file).c_str());
    return child > 0;
  }));
  ASSERT_TRUE(ProcessAlive(child));

  RunResult cancel = env.Dlp({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_THAT(cancel.out, ::testing::HasSubstr("cancelled"));
  const bool gone = Eventually([&] { return !ProcessAlive(child); });
  if (!gone) kill(child, SIGKILL);  // never leave it behind
  EXPECT_TRUE(gone) << "child " << child << " survived the cancel";

  RunResult waited = env.Dlp({"wait", id});
  EXPECT_EQ(waited.exit_code, 5) << waited.err;
  // Cancelling again is not an error.
  EXPECT_EQ(env.Dlp({"cancel", id}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
