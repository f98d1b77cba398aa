// Ctrl-C while `dlp wait` or `dlp submit --wait` waits: exit 130, a message,
// and the job keeps running. Real dlp and dlpd.
#include <signal.h>

#include "absl/strings/numbers.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// Whether `pid` catches SIGINT (SigCgt in /proc/PID/status): its handler is in.
bool CatchesSigint(int pid) {
  const std::string status = ReadFileOrEmpty(absl::StrCat("/proc/", pid, "/status"));
  const size_t at = status.find("SigCgt:\t");
  if (at == std::string::npos) return false;
  uint64_t mask = 0;
  if (!absl::SimpleHexAtoi(status.substr(at + 8, 16), &mask)) return false;
  return (mask >> (SIGINT - 1)) & 1;
}

TEST(CliWaitInterrupt, CtrlCEndsTheWaitAndLeavesTheJobRunning) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("sleeper", "sleep 60"));
  auto waiter = env.DlpInBackground({"wait", id});
  ASSERT_TRUE(Eventually([&] { return CatchesSigint(waiter->pid()); }));
  waiter->Signal(SIGINT);
  RunResult r = waiter->Wait(absl::Seconds(30));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_THAT(r.err, HasSubstr("dlp: error: interrupted while waiting for job " + id +
                               "; the job keeps running"));
  EXPECT_EQ(env.State(id), "Running");
  EXPECT_EQ(env.Dlp({"cancel", "-q", id}).exit_code, 0);
}

TEST(CliWaitInterrupt, ATimeoutNamesTheJobAndItsState) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("sleeper", "sleep 60"));
  RunResult r = env.Dlp({"wait", id, "--timeout", "1s"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, ::testing::MatchesRegex("dlp: error: timed out waiting for job " + id +
                                             ": still (Queued|Running)\n"));
  EXPECT_EQ(env.Dlp({"cancel", "-q", id}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
