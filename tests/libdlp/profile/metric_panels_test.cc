// The panels of `dlp metrics --plot/--png/--svg`: one per metric, rank 0's
// series unless every replica or an aggregate is asked for.
#include "dlp/profile.h"
#include "gtest/gtest.h"

namespace dlp {
namespace {

// A 4-replica job reporting loss (small) and samples_per_s (large) per step.
std::vector<MetricPoint> FourReplicas() {
  std::vector<MetricPoint> points;
  for (int step = 0; step < 3; ++step) {
    for (int r = 3; r >= 0; --r) {  // not in rank order, as logs interleave
      const std::string replica = "worker-" + std::to_string(r);
      points.push_back({replica, "loss", 1.0 + r + step, step, absl::FromUnixSeconds(step)});
      points.push_back({replica, "samples_per_s", 30000.0, step, absl::FromUnixSeconds(step)});
    }
  }
  return points;
}

TEST(MetricPanels, OnePanelPerMetricWithRankZerosSeriesByDefault) {
  const std::vector<ChartPanel> panels =
      MetricPanels({{"7", FourReplicas()}}, ReplicaSeries::kLowestRank, false);
  ASSERT_EQ(panels.size(), 2u);
  EXPECT_EQ(panels[0].y_label, "loss");
  EXPECT_EQ(panels[1].y_label, "samples_per_s");
  ASSERT_EQ(panels[0].series.size(), 1u);
  EXPECT_EQ(panels[0].series[0].label, "worker-0");
  const std::vector<std::pair<double, double>> expected = {{0, 1}, {1, 2}, {2, 3}};
  EXPECT_EQ(panels[0].series[0].points, expected);
}

TEST(MetricPanels, EveryReplicaOnRequest) {
  const std::vector<ChartPanel> panels =
      MetricPanels({{"7", FourReplicas()}}, ReplicaSeries::kEach, false);
  ASSERT_EQ(panels[0].series.size(), 4u);
  EXPECT_EQ(panels[0].series[3].label, "worker-3");
}

TEST(MetricPanels, ANamedAggregatePerStep) {
  const std::vector<ChartPanel> mean =
      MetricPanels({{"7", FourReplicas()}}, ReplicaSeries::kMean, false);
  ASSERT_EQ(mean[0].series.size(), 1u);
  EXPECT_EQ(mean[0].series[0].label, "mean of 4 replicas");
  const std::vector<std::pair<double, double>> expected = {{0, 2.5}, {1, 3.5}, {2, 4.5}};
  EXPECT_EQ(mean[0].series[0].points, expected);
  const std::vector<ChartPanel> max =
      MetricPanels({{"7", FourReplicas()}}, ReplicaSeries::kMax, false);
  EXPECT_EQ(max[0].series[0].label, "max of 4 replicas");
  EXPECT_EQ(max[0].series[0].points.back().second, 6);
}

TEST(MetricPanels, SeveralJobsAreLabelledByJob) {
  const std::vector<ChartPanel> panels = MetricPanels(
      {{"7", FourReplicas()}, {"9", FourReplicas()}}, ReplicaSeries::kLowestRank, false);
  ASSERT_EQ(panels[0].series.size(), 2u);
  EXPECT_EQ(panels[0].series[0].label, "7/worker-0");
  EXPECT_EQ(panels[0].series[1].label, "9/worker-0");
}

TEST(MetricPanels, ReplicaSeriesNamesParse) {
  EXPECT_EQ(*ParseReplicaSeries("rank0"), ReplicaSeries::kLowestRank);
  EXPECT_EQ(*ParseReplicaSeries("each"), ReplicaSeries::kEach);
  EXPECT_FALSE(ParseReplicaSeries("all").ok());
}

}  // namespace
}  // namespace dlp
