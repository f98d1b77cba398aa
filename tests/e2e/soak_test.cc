// The soak scripts at their CI sizes, against the built programs:
// bench/soak/churn.sh with 2,000 short jobs and bench/soak/kill9.sh with 200
// submissions and 30 SIGKILLs of dlpd. Each script checks its own figures and
// exits non-zero when one fails; the full sizes are in bench/RESULTS.md. The
// submission rate is reported but not required here (shared CI machines).
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "support/subprocess.h"

namespace dlp::testing {
namespace {

RunResult Soak(const std::string& script, std::map<std::string, std::string> env) {
  RunOptions options;
  options.env = std::move(env);
  options.timeout = absl::Seconds(280);
  return Run({"bash", std::string(DLP_SOURCE_DIR) + "/bench/soak/" + script, DLP_BUILD_DIR},
             options);
}

TEST(Soak, ChurnOfShortJobsEndsWithEveryJobSucceededAndNothingLeaked) {
  std::map<std::string, std::string> env = {{"JOBS", "2000"}, {"RATE", "200"}, {"MIN_RATE", "0"}};
#ifdef DLP_TEST_SANITIZED
  // ASan keeps up to 256 MiB of freed memory in quarantine, so RSS says little
  // there; LeakSanitizer checks dlpd for leaks when it exits instead.
  env["RSS_SLACK_MIB"] = "1024";
#endif
  RunResult r = Soak("churn.sh", env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(Soak, SigkilledDlpdRunsEveryAcknowledgedJobExactlyOnce) {
  RunResult r = Soak("kill9.sh", {{"JOBS", "200"}, {"KILLS", "30"}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace dlp::testing
