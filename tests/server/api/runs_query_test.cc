#include "server/api/runs_query.h"

#include <gtest/gtest.h>

#include "server/api/metric_summaries.h"

namespace dlp::server {
namespace {

Job MakeJob(const std::string& id, std::map<std::string, std::string> labels = {}) {
  Job job;
  job.id = id;
  job.name = "run-" + id;
  job.spec.labels = std::move(labels);
  return job;
}

std::vector<std::string> Ids(const std::vector<size_t>& picked, const std::vector<Job>& jobs) {
  std::vector<std::string> ids;
  for (size_t i : picked) ids.push_back(jobs[i].id);
  return ids;
}

TEST(RunsQueryTest, ParsesColumnsOfEveryKind) {
  absl::StatusOr<RunColumn> c = ParseRunColumn("metric.test_accuracy:max");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->kind, RunColumn::Kind::kMetric);
  EXPECT_EQ(c->name, "test_accuracy");
  EXPECT_EQ(c->stat, MetricStat::kMax);
  EXPECT_EQ(c->key, "metric.test_accuracy:max");
  EXPECT_EQ(ParseRunColumn("metric.loss")->stat, MetricStat::kLast);
  EXPECT_EQ(ParseRunColumn("label.team")->kind, RunColumn::Kind::kLabel);
  EXPECT_EQ(ParseRunColumn("param.lr")->kind, RunColumn::Kind::kParam);
  EXPECT_EQ(ParseRunColumn("created")->kind, RunColumn::Kind::kBuiltin);
  EXPECT_EQ(ParseRunColumn("label.dlp.dev/sweep")->name, "dlp.dev/sweep");
  for (const char* bad : {"", "metric.", "lr", "label.a b", "metric.x:median", "param.<x>"}) {
    absl::StatusOr<RunColumn> got = ParseRunColumn(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(got.status())) << bad;
  }
  EXPECT_FALSE(ParseRunColumn("label." + std::string(kMaxRunKeyBytes, 'k')).ok());
}

TEST(RunsQueryTest, ParsesConditionsWithEveryOperator) {
  struct Case {
    const char* text;
    CompareOp op;
    const char* value;
  };
  for (const Case& c : {Case{"metric.test_accuracy>0.85", CompareOp::kGt, "0.85"},
                        Case{"param.lr<0.1", CompareOp::kLt, "0.1"},
                        Case{"label.team=vision", CompareOp::kEq, "vision"},
                        Case{"label.team!=vision", CompareOp::kNe, "vision"},
                        Case{"metric.loss<=1e-3", CompareOp::kLe, "1e-3"},
                        Case{"param.layers>=2", CompareOp::kGe, "2"},
                        Case{"label.note=a=b", CompareOp::kEq, "a=b"}}) {
    absl::StatusOr<RunCondition> got = ParseRunCondition(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(got->op, c.op) << c.text;
    EXPECT_EQ(got->value, c.value) << c.text;
  }
  EXPECT_EQ(*ParseRunCondition("metric.loss<0.5")->number, 0.5);
  EXPECT_FALSE(ParseRunCondition("label.team=vision")->number.has_value());
  for (const char* bad : {"metric.loss", ">1", "loss>1", "metric.loss>abc", "metric.loss>nan",
                          "metric.loss=>1"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseRunCondition(bad).status())) << bad;
  }
}

TEST(RunsQueryTest, QueryParametersAreBounded) {
  RunsParams p;
  p.columns = "metric.loss,label.team";
  p.where = {"metric.loss<1"};
  p.sort = "-metric.loss";
  p.offset = "20";
  p.limit = "50";
  absl::StatusOr<RunsQuery> q = ParseRunsQuery(p);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->columns.size(), 2u);
  EXPECT_TRUE(q->descending);
  EXPECT_EQ(q->sort.name, "loss");
  EXPECT_EQ(q->offset, 20);
  EXPECT_EQ(q->limit, 50);
  EXPECT_TRUE(q->NeedsMetrics());
  EXPECT_FALSE(q->NeedsParams());
  EXPECT_FALSE(ParseRunsQuery(RunsParams{"label.a", "name", "", "", {}})->descending);

  auto error = [](RunsParams p) { return std::string(ParseRunsQuery(p).status().message()); };
  EXPECT_EQ(error({"", "", "-1", "", {}}).rfind("offset: ", 0), 0u);
  EXPECT_EQ(error({"", "", "1x", "", {}}).rfind("offset: ", 0), 0u);
  EXPECT_EQ(error({"", "", "", "0", {}}).rfind("limit: ", 0), 0u);
  EXPECT_EQ(error({"", "", "", "1001", {}}).rfind("limit: ", 0), 0u);
  EXPECT_EQ(error({"", "bogus", "", "", {}}).rfind("sort: ", 0), 0u);
  EXPECT_EQ(error({"nope", "", "", "", {}}).rfind("columns: ", 0), 0u);
  EXPECT_EQ(error({"", "", "", "", {"x"}}).rfind("where: ", 0), 0u);
  std::string many;
  for (int i = 0; i <= kMaxRunColumns; ++i) many += "label.k" + std::to_string(i) + ",";
  EXPECT_EQ(error({many, "", "", "", {}}).rfind("columns: at most", 0), 0u);
  EXPECT_EQ(error({"", "", "", "", std::vector<std::string>(kMaxRunConditions + 1, "label.a=1")})
                .rfind("where: at most", 0),
            0u);
}

TEST(RunsQueryTest, FiltersAndSortsOnLabelsParamsAndMetrics) {
  std::vector<Job> jobs = {MakeJob("1", {{"team", "vision"}}), MakeJob("2", {{"team", "nlp"}}),
                           MakeJob("3", {{"team", "vision"}}), MakeJob("10")};
  std::vector<std::map<std::string, std::string>> params = {
      {{"lr", "0.01"}}, {{"lr", "0.2"}}, {{"lr", "0.05"}}, {}};
  std::vector<MetricSummaryMap> metrics(4);
  metrics[0]["acc"] = {.last = 0.9, .min = 0.5, .max = 0.91, .step = 3, .count = 4};
  metrics[1]["acc"] = {.last = 0.7, .min = 0.4, .max = 0.95, .step = 3, .count = 4};
  metrics[2]["acc"] = {.last = 0.86, .min = 0.2, .max = 0.86, .step = 3, .count = 4};
  std::vector<RunFacts> rows;
  for (size_t i = 0; i < jobs.size(); ++i) {
    rows.push_back({&jobs[i], i < 3 ? &params[i] : nullptr, &metrics[i]});
  }
  auto select = [&](std::vector<std::string> where, std::string sort) {
    RunsParams p;
    p.where = std::move(where);
    p.sort = std::move(sort);
    absl::StatusOr<RunsQuery> q = ParseRunsQuery(p);
    EXPECT_TRUE(q.ok()) << q.status();
    return Ids(SelectRuns(*q, rows), jobs);
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(select({}, ""), (V{"10", "3", "2", "1"}));  // newest first, ids as numbers
  EXPECT_EQ(select({"metric.acc>0.85"}, ""), (V{"3", "1"}));
  EXPECT_EQ(select({"metric.acc:max>0.92"}, ""), (V{"2"}));
  EXPECT_EQ(select({"label.team=vision"}, ""), (V{"3", "1"}));
  EXPECT_EQ(select({"label.team!=vision"}, ""), (V{"2"}));  // no label: no match
  EXPECT_EQ(select({"param.lr<0.1"}, ""), (V{"3", "1"}));
  EXPECT_EQ(select({"param.lr<0.1", "metric.acc>0.88"}, ""), (V{"1"}));
  // Missing values last, whichever the direction.
  EXPECT_EQ(select({}, "-metric.acc"), (V{"1", "3", "2", "10"}));
  EXPECT_EQ(select({}, "metric.acc"), (V{"2", "3", "1", "10"}));
  EXPECT_EQ(select({}, "param.lr"), (V{"1", "3", "2", "10"}));
  EXPECT_EQ(select({}, "name"), (V{"1", "10", "2", "3"}));

  EXPECT_EQ(std::get<double>(ValueOf(*ParseRunColumn("param.lr"), rows[0])), 0.01);
  EXPECT_EQ(std::get<std::string>(ValueOf(*ParseRunColumn("label.team"), rows[0])), "vision");
  EXPECT_EQ(std::get<double>(ValueOf(*ParseRunColumn("metric.acc:min"), rows[2])), 0.2);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(ValueOf(*ParseRunColumn("metric.acc"), rows[3])));
}

TEST(MetricSummaryBuilderTest, RankZeroFirstThenTheLowestRankThatReported) {
  MetricSummaryBuilder b;
  b.Add("worker-1", "loss", 5, 1);
  b.Add("worker-1", "only_rank_1", 7, 1);
  b.Add("worker-0", "loss", 2, 1);
  b.Add("worker-0", "loss", 0.5, 2);
  b.Add("worker-0", "loss", 1, 3);
  std::vector<JobReplica> ranks(2);
  ranks[0].name = "worker-0";
  ranks[1].name = "worker-1";
  MetricSummaryMap got = b.Result(ranks);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got["loss"].last, 1);
  EXPECT_EQ(got["loss"].min, 0.5);
  EXPECT_EQ(got["loss"].max, 2);
  EXPECT_EQ(got["loss"].step, 3);
  EXPECT_EQ(got["loss"].count, 3);
  EXPECT_EQ(got["only_rank_1"].last, 7);
}

}  // namespace
}  // namespace dlp::server
