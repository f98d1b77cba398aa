// Following and printing logs leaves metric lines (DLP_METRIC on stdout) out
// unless --metrics is given; `dlp metrics` still reads them. Real dlp and dlpd.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTrainer[] =
    "echo epoch 1\necho 'DLP_METRIC loss=0.5 step=1'\necho 'DLP_METRIC loss=0.25 step=2'\n"
    "echo finished";

TEST(CliLogsMetrics, FollowLeavesMetricLinesOutUnlessAsked) {
  CliEnv env;
  const std::string spec = env.WriteJob("trainer", kTrainer);
  RunResult quiet = env.Dlp({"submit", spec, "--follow"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, HasSubstr("[worker-0] epoch 1\n"));
  EXPECT_THAT(quiet.out, HasSubstr("[worker-0] finished\n"));
  EXPECT_THAT(quiet.out, Not(HasSubstr("DLP_METRIC")));

  RunResult all = env.Dlp({"submit", spec, "--follow", "--metrics"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("[worker-0] epoch 1\n[worker-0] DLP_METRIC loss=0.5 step=1\n"
                                 "[worker-0] DLP_METRIC loss=0.25 step=2\n[worker-0] finished\n"));
}

TEST(CliLogsMetrics, LogsLeaveThemOutAndMetricsStillReportsTheSeries) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("trainer", kTrainer));
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0);

  RunResult logs = env.Dlp({"logs", id});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(logs.out, "[worker-0] epoch 1\n[worker-0] finished\n");
  RunResult followed = env.Dlp({"logs", "-f", "--replica", "worker-0", id});
  EXPECT_EQ(followed.out, "epoch 1\nfinished\n") << followed.err;
  // --tail counts the lines printed, not the metric lines left out.
  RunResult tail = env.Dlp({"logs", id, "--tail", "2", "--replica", "worker-0"});
  EXPECT_EQ(tail.out, "epoch 1\nfinished\n") << tail.err;
  RunResult with = env.Dlp({"logs", id, "--metrics", "--replica", "worker-0"});
  EXPECT_EQ(with.out,
            "epoch 1\nDLP_METRIC loss=0.5 step=1\nDLP_METRIC loss=0.25 step=2\nfinished\n")
      << with.err;

  RunResult metrics = env.Dlp({"metrics", id, "-o", "csv"});
  EXPECT_EQ(metrics.exit_code, 0) << metrics.err;
  EXPECT_THAT(metrics.out, HasSubstr("worker-0,loss,1,0.5,"));
  EXPECT_THAT(metrics.out, HasSubstr("worker-0,loss,2,0.25,"));
}

}  // namespace
}  // namespace dlp::testing
