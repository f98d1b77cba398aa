// Restart policy OnFailure: a replica that fails once, then succeeds.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

TEST(CliRestart, OnFailureRestartsUntilSuccess) {
  CliEnv env;
  const std::string marker = env.Work("attempted");
  const std::string spec = env.WriteJob(
      "flaky",
      "if [ -f " + marker + " ]; then echo second attempt; exit 0; fi\ntouch " + marker +
          "\necho first attempt\nexit 1",
      1, "100m", "  restartPolicy: {policy: OnFailure, maxRestarts: 2, backoffSeconds: 0}\n");
  RunResult r = env.Dlp({"submit", "-q", spec, "--wait"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string id(absl::StripAsciiWhitespace(r.out));
  nlohmann::json job = env.Status(id);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["restartCount"], 1) << job.dump();
  RunResult logs = env.Dlp({"logs", id});
  EXPECT_THAT(logs.out, ::testing::HasSubstr("first attempt"));
  EXPECT_THAT(logs.out, ::testing::HasSubstr("second attempt"));
}

TEST(CliRestart, NeverPolicyFailsAtOnce) {
  CliEnv env;
  const std::string spec = env.WriteJob("once", "exit 1", 1, "100m",
                                        "  restartPolicy: {policy: Never}\n");
  RunResult r = env.Dlp({"submit", "-q", spec, "--wait"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(env.Status(std::string(absl::StripAsciiWhitespace(r.out)))["restartCount"], 0);
}

}  // namespace
}  // namespace dlp::testing
