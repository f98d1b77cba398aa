// `kind: Sweep` documents: what parses, what each problem reports (file:line,
// field path), substitution into trials, and the JSON round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dlp/pipeline.h"
#include "dlp/sweep.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

constexpr char kSweep[] = R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: fmnist-lr}
spec:
  objective: {metric: test_accuracy, goal: maximize}
  search: {algorithm: asha, resource: epoch, min: 1, max: 8, reductionFactor: 3, seed: 7}
  maxTrials: 16
  parallelism: 2
  parameters:
    lr: {type: logfloat, min: 0.001, max: 0.3}
    hidden: {type: categorical, values: [128, 256, 512]}
  template:
    replicas:
      worker:
        count: 2
        command: [fmnist-train, --lr, "${params.lr}", --hidden, "${params.hidden}", --epochs, "${resource}"]
        env: {HIDDEN: "${params.hidden}", HOME_DIR: "${HOME}"}
        resources: {cpu: 1, memory: 1Gi}
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(SweepSpec, ParsesTheIssuesExample) {
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(kSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "fmnist-lr");
  EXPECT_EQ(spec->objective.metric, "test_accuracy");
  EXPECT_TRUE(spec->objective.maximize);
  EXPECT_EQ(spec->search.algorithm, SearchAlgorithm::kAsha);
  EXPECT_EQ(spec->search.max_resource, 8);
  EXPECT_EQ(spec->search.seed, 7u);
  EXPECT_EQ(spec->max_trials, 16);
  ASSERT_EQ(spec->parameters.size(), 2u);
  EXPECT_EQ(spec->parameters[0].name, "lr");
  EXPECT_EQ(spec->parameters[1].values, (std::vector<std::string>{"128", "256", "512"}));
  ASSERT_EQ(spec->job.replicas.size(), 1u);
  EXPECT_EQ(spec->job.replicas[0].count, 2);
  EXPECT_EQ(spec->job.workdir, "/tmp");
  EXPECT_TRUE(ValidateSweepSpec(*spec).ok()) << ValidateSweepSpec(*spec);
  EXPECT_EQ(SpecKind(kSweep, "sweep.yaml").value_or(""), "Sweep");
}

TEST(SweepSpec, TrialJobsHaveTheValuesSubstitutedInCommandAndEnvOnly) {
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(kSweep, "sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<JobSpec> job = TrialJobSpec(*spec, "12", 3, {{"lr", "0.01"}, {"hidden", "256"}});
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->name, "fmnist-lr-3");
  EXPECT_EQ(job->labels.at("dlp.dev/sweep"), "12");
  EXPECT_EQ(job->labels.at("dlp.dev/trial"), "3");
  EXPECT_EQ(job->replicas[0].command,
            (std::vector<std::string>{"fmnist-train", "--lr", "0.01", "--hidden", "256", "--epochs",
                                      "8"}));
  EXPECT_EQ(job->replicas[0].env.at("HIDDEN"), "256");
  EXPECT_EQ(job->replicas[0].env.at("HOME_DIR"), "${HOME}");  // not ours: left alone
}

struct BadCase {
  const char* title;
  std::string yaml;
  std::string expected;
};

TEST(SweepSpec, ProblemsNameTheLineAndField) {
  const std::vector<BadCase> cases = {
      {"unknown parameter",
       Replace(kSweep, "${params.hidden}\", --epochs", "${params.hiden}\", --epochs"),
       "sweep.yaml:16:65: spec.template.replicas.worker.command[4]: unknown parameter 'hiden' in "
       "${params.hiden}; parameters: lr, hidden"},
      {"resource outside asha",
       Replace(
           Replace(kSweep, "algorithm: asha, resource: epoch, min: 1, max: 8, reductionFactor: 3, ",
                   "algorithm: random, "),
           "\"${params.lr}\"", "\"${resource}\""),
       "spec.template.replicas.worker.command[2]: ${resource} is given only by "
       "spec.search.algorithm asha"},
      {"too many trials", Replace(kSweep, "maxTrials: 16", "maxTrials: 10001"),
       "sweep.yaml:7:14: spec.maxTrials: 10001 is out of range; expected 1 to 10000"},
      {"too much parallelism", Replace(kSweep, "parallelism: 2", "parallelism: 1001"),
       "sweep.yaml:8:16: spec.parallelism: 1001 is out of range; expected 1 to 1000"},
      {"bad algorithm", Replace(kSweep, "algorithm: asha", "algorithm: ashaa"),
       "spec.search.algorithm: unknown algorithm \"ashaa\"; did you mean 'asha'?"},
      {"bad goal", Replace(kSweep, "goal: maximize", "goal: max"),
       "sweep.yaml:5:44: spec.objective.goal: unknown goal \"max\""},
      {"min above max", Replace(kSweep, "min: 0.001, max: 0.3", "min: 0.5, max: 0.3"),
       "sweep.yaml:10:9: spec.parameters.lr: min (0.5) is above max (0.3)"},
      {"logfloat from zero", Replace(kSweep, "min: 0.001", "min: 0"),
       "spec.parameters.lr: a logfloat parameter's min is above 0"},
      {"no values",
       Replace(kSweep, "type: categorical, values: [128, 256, 512]", "type: categorical"),
       "sweep.yaml:11:13: spec.parameters.hidden.values: required"},
      {"template job problem", Replace(kSweep, "count: 2", "count: 0"),
       "sweep.yaml:15:16: spec.template.replicas.worker.count:"},
      {"unknown template field", Replace(kSweep, "    replicas:", "    replica:"),
       "spec.template.replica: unknown field; did you mean 'replicas'?"},
      {"grid needs steps",
       Replace(
           Replace(kSweep, "algorithm: asha, resource: epoch, min: 1, max: 8, reductionFactor: 3, ",
                   "algorithm: grid, "),
           "\"${resource}\"", "\"2\""),
       "spec: a grid over logfloat parameter 'lr' needs steps: N"},
      {"kind", Replace(kSweep, "kind: Sweep", "kind: Sweeps"),
       "sweep.yaml:2:7: kind: \"Sweeps\" is not supported; expected Sweep"},
      {"unknown search field", Replace(kSweep, "reductionFactor: 3", "reduction: 3"),
       "spec.search.reduction: unknown field; did you mean 'reductionFactor'?"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.title);
    absl::StatusOr<SweepSpec> spec = ParseSweepSpec(c.yaml, "sweep.yaml");
    ASSERT_FALSE(spec.ok());
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.expected));
  }
}

TEST(SweepSpec, GridSizeIsBounded) {
  std::string yaml =
      Replace(kSweep, "algorithm: asha, resource: epoch, min: 1, max: 8, reductionFactor: 3, ",
              "algorithm: grid, ");
  yaml = Replace(yaml, "--epochs, \"${resource}\"", "--epochs, \"2\"");
  yaml =
      Replace(yaml, "{type: logfloat, min: 0.001, max: 0.3}", "{type: int, min: 1, max: 100000}");
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(yaml, "sweep.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("the grid has more than 10000 points"));
}

TEST(SweepSpec, JsonRoundTripsAndValidates) {
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(kSweep, "sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<SweepSpec> back = SweepSpecFromJson(SweepSpecToJson(*spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *spec);
  SweepSpec bad = *spec;
  bad.job.replicas[0].command[2] = "${params.nope}";
  bad.max_trials = 20000;
  absl::Status status = ValidateSweepSpec(bad);
  EXPECT_THAT(status.message(), HasSubstr("spec.template.replicas.worker.command[2]: unknown "
                                          "parameter 'nope'"));
  EXPECT_THAT(status.message(), HasSubstr("maxTrials is from 1 to 10000"));
}

TEST(SweepStatus, JsonHasExactlyTheDocumentedKeys) {
  absl::StatusOr<SweepSpec> spec = ParseSweepSpec(kSweep, "sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  Sweep sweep;
  sweep.id = "3";
  sweep.spec = *spec;
  SweepTrial t;
  t.number = 1;
  t.job = "10";
  t.params = {{"lr", "0.01"}, {"hidden", "256"}};
  t.objective = 0.8;
  t.resource = 2;
  t.state = TrialState::kRunning;
  sweep.trials.push_back(t);
  EXPECT_EQ(SweepStatusJson(sweep, -1),
            R"({"best":{"job":"10","objective":0.8,"outcome":"running",)"
            R"("params":{"hidden":"256","lr":0.01},"reason":"","resource":2,"state":"Running"},)"
            R"("id":"3","objective":{"goal":"maximize","metric":"test_accuracy"},"state":"Running",)"
            R"("trials":[{"job":"10","objective":0.8,"outcome":"running",)"
            R"("params":{"hidden":"256","lr":0.01},"reason":"","resource":2,"state":"Running"}]})");
  absl::StatusOr<Sweep> back = SweepFromJson(SweepToJson(sweep));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->trials[0].params, t.params);
  EXPECT_EQ(back->spec, sweep.spec);
}

}  // namespace
}  // namespace dlp
