// Metric lines in a job's logs: which lines are metrics, which a read of logs
// keeps, and the step rates `dlp top` derives from them.
#include <vector>

#include "dlp/profile.h"
#include "gtest/gtest.h"

namespace dlp {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

LogLine Line(const std::string& replica, double seconds, const std::string& text,
             const std::string& stream = "stdout") {
  return {replica, stream, kT0 + absl::Seconds(seconds), text};
}

TEST(MetricFromLogLine, FillsReplicaAndTimeFromTheLine) {
  std::optional<MetricPoint> p =
      MetricFromLogLine(Line("worker-1", 2, "DLP_METRIC loss=0.25 step=40"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->replica, "worker-1");
  EXPECT_EQ(p->name, "loss");
  EXPECT_DOUBLE_EQ(p->value, 0.25);
  EXPECT_EQ(p->step, 40);
  EXPECT_EQ(p->time, kT0 + absl::Seconds(2));
}

TEST(MetricFromLogLine, OnlyWholeDlpMetricLinesOnStdout) {
  EXPECT_TRUE(IsMetricLine(Line("worker-0", 0, "DLP_METRIC accuracy=0.9")));
  EXPECT_FALSE(IsMetricLine(Line("worker-0", 0, "DLP_METRIC loss=0.1 step=1", "stderr")));
  EXPECT_FALSE(IsMetricLine(Line("worker-0", 0, "epoch 1: DLP_METRIC loss=0.1")));
  EXPECT_FALSE(IsMetricLine(Line("worker-0", 0, "DLP_METRIC loss=high")));
  EXPECT_FALSE(IsMetricLine(Line("worker-0", 0, "DLP_METRICS loss=0.1")));
  EXPECT_FALSE(IsMetricLine(Line("worker-0", 0, "training...")));
}

TEST(MetricFilterKeeps, AllLinesNoMetricsOrOnlyMetrics) {
  const LogLine metric = Line("worker-0", 0, "DLP_METRIC loss=1 step=1");
  const LogLine other = Line("worker-0", 0, "DLP_METRIC loss=1 step=1", "stderr");
  EXPECT_TRUE(MetricFilterKeeps(metric, /*metrics=*/true, /*metrics_only=*/false));
  EXPECT_TRUE(MetricFilterKeeps(other, true, false));
  EXPECT_FALSE(MetricFilterKeeps(metric, false, false));
  EXPECT_TRUE(MetricFilterKeeps(other, false, false));
  // metrics_only wins over metrics.
  for (bool metrics : {true, false}) {
    EXPECT_TRUE(MetricFilterKeeps(metric, metrics, true));
    EXPECT_FALSE(MetricFilterKeeps(other, metrics, true));
  }
}

TEST(StepRatesFromLogs, LatestStepAndRateBetweenFirstAndLastPerReplica) {
  const std::vector<LogLine> lines = {
      Line("worker-0", 0, "DLP_METRIC loss=1.0 step=10"),
      Line("worker-1", 0, "DLP_METRIC loss=1.1 step=10"),
      Line("worker-0", 1, "starting epoch 2"),
      Line("worker-0", 2, "DLP_METRIC loss=0.9 step=20"),
      Line("worker-1", 4, "DLP_METRIC loss=0.8 step=20"),
      Line("worker-0", 4, "DLP_METRIC loss=0.7 step=30"),
  };
  std::map<std::string, StepRate> rates = StepRatesFromLogs(lines);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_EQ(rates["worker-0"].step, 30);
  EXPECT_DOUBLE_EQ(rates["worker-0"].steps_per_s, 5.0);  // 20 steps in 4 s
  EXPECT_EQ(rates["worker-1"].step, 20);
  EXPECT_DOUBLE_EQ(rates["worker-1"].steps_per_s, 2.5);  // 10 steps in 4 s
}

TEST(StepRatesFromLogs, NoRateWithoutTwoStepsApart) {
  const std::vector<LogLine> lines = {
      Line("worker-0", 0, "DLP_METRIC loss=1.0 step=7"),
      Line("worker-1", 0, "DLP_METRIC loss=1.0 step=3"),
      Line("worker-1", 0, "DLP_METRIC accuracy=0.5 step=4"),  // no time between them
      Line("worker-2", 0, "DLP_METRIC loss=1.0"),             // no step
      Line("worker-3", 0, "DLP_METRIC loss=1.0 step=9", "stderr"),
  };
  std::map<std::string, StepRate> rates = StepRatesFromLogs(lines);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_EQ(rates["worker-0"].step, 7);
  EXPECT_EQ(rates["worker-0"].steps_per_s, 0);
  EXPECT_EQ(rates["worker-1"].step, 4);
  EXPECT_EQ(rates["worker-1"].steps_per_s, 0);
  EXPECT_TRUE(StepRatesFromLogs({}).empty());
}

}  // namespace
}  // namespace dlp
