// Runs side by side: final and best value per run, the goal guessed from the
// metric's name, and the JSON form.
#include <gtest/gtest.h>

#include "dlp/profile.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

MetricPoint P(const std::string& name, double value, int64_t step) {
  return MetricPoint{"worker-0", name, value, step, absl::UnixEpoch()};
}

TEST(CompareRuns, FinalAndBestPerRun) {
  const std::vector<std::pair<std::string, std::vector<MetricPoint>>> runs = {
      {"12", {P("loss", 0.9, 1), P("accuracy", 0.7, 1), P("loss", 0.4, 2), P("loss", 0.5, 3)}},
      {"13", {P("loss", 0.8, 1), P("loss", 0.3, 2)}},
  };
  const std::vector<MetricComparison> c = CompareRuns(runs);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].name, "accuracy");
  EXPECT_EQ(c[0].goal, MetricGoal::kMaximize);
  EXPECT_EQ(c[0].runs.count("13"), 0u);
  EXPECT_EQ(c[1].name, "loss");
  EXPECT_EQ(c[1].goal, MetricGoal::kMinimize);
  const RunMetric& a = c[1].runs.at("12");
  EXPECT_EQ(a.points, 3);
  EXPECT_EQ(a.final_value, 0.5);
  EXPECT_EQ(a.final_step, 3);
  EXPECT_EQ(a.best, 0.4);
  EXPECT_EQ(a.best_step, 2);
  EXPECT_EQ(c[1].runs.at("13").best, 0.3);

  nlohmann::json j = nlohmann::json::parse(ComparisonToJson({"12", "13"}, c));
  EXPECT_EQ(j["jobs"], nlohmann::json({"12", "13"}));
  EXPECT_EQ(j["metrics"][1]["goal"], "min");
  EXPECT_EQ(j["metrics"][1]["runs"]["12"]["best"], 0.4);
  EXPECT_EQ(j["metrics"][1]["runs"]["13"]["finalStep"], 2);
  EXPECT_FALSE(j["metrics"][0]["runs"].contains("13"));
}

TEST(CompareRuns, ARunsFiguresAreItsLowestRanksThatReported) {
  auto at = [](const std::string& replica, double value, int64_t step) {
    return MetricPoint{replica, "loss", value, step, absl::UnixEpoch()};
  };
  // worker-1 logs last and worst; the chief is rank 0 and reports the loss.
  const std::vector<MetricPoint> points = {at("worker-0", 0.4, 2), at("chief-0", 0.5, 2),
                                           at("worker-1", 0.9, 3)};
  EXPECT_EQ(LowestRankReporting(points, "loss"), "chief-0");
  EXPECT_EQ(LowestRankReporting(points, "accuracy"), "");
  EXPECT_EQ(LowestRankReporting({at("worker-10", 1, 1), at("worker-2", 1, 1)}, "loss"), "worker-2");
  const std::vector<MetricComparison> c = CompareRuns({{"7", points}});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].runs.at("7").final_value, 0.5);
  EXPECT_EQ(c[0].runs.at("7").points, 1);
}

TEST(CompareRuns, GoalFromTheName) {
  EXPECT_EQ(GuessMetricGoal("epoch_loss"), MetricGoal::kMinimize);
  EXPECT_EQ(GuessMetricGoal("Val_Error"), MetricGoal::kMinimize);
  EXPECT_EQ(GuessMetricGoal("accuracy"), MetricGoal::kMaximize);
  EXPECT_EQ(GuessMetricGoal("samples_per_s"), MetricGoal::kMaximize);
}

}  // namespace
}  // namespace dlp
