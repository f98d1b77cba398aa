// kind: Pipeline files and spec.dependsOn: decoding with positions, the DAG
// (order, cycles with file:line), ${jobs.NAME.outputDir} substitution, the
// JSON forms, and when a dependency is met, waits or can never be.
#include <gtest/gtest.h>

#include "dlp/codec.h"
#include "dlp/job_dependencies.h"
#include "dlp/pipeline.h"
#include "dlp/spec.h"

namespace dlp {
namespace {

constexpr char kChain[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: chain}
spec:
  jobs:
    eval:
      dependsOn: [{job: train}]
      replicas:
        worker: {command: [cat, "${jobs.prep.outputDir}/data.txt"]}
    train:
      dependsOn: [{job: prep, condition: succeeded}]
      replicas:
        worker:
          command: [echo, train]
          env: {DATA: "${jobs.prep.outputDir}"}
    prep:
      replicas:
        worker: {command: [echo, prep]}
)";

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(PipelineSpec, ParsesJobsAndOrdersThemAfterTheirDependencies) {
  auto spec = ParsePipelineSpec(kChain, "/tmp/p/chain.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "chain");
  ASSERT_EQ(spec->jobs.size(), 3u);
  EXPECT_EQ(spec->jobs[0].name, "eval");
  EXPECT_EQ(spec->jobs[0].spec.name, "chain-eval");
  EXPECT_EQ(spec->jobs[0].spec.workdir, "/tmp/p");
  ASSERT_EQ(spec->jobs[1].spec.depends_on.size(), 1u);
  EXPECT_EQ(spec->jobs[1].spec.depends_on[0].job, "prep");
  auto order = PipelineOrder(*spec);
  ASSERT_TRUE(order.ok()) << order.status();
  EXPECT_EQ(*order, (std::vector<size_t>{2, 1, 0}));  // prep, train, eval
  EXPECT_TRUE(ValidatePipelineSpec(*spec).ok());
  auto back = PipelineSpecFromJson(PipelineSpecToJson(*spec));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->jobs.size(), 3u);
  EXPECT_EQ(back->jobs[1].spec, spec->jobs[1].spec);
}

TEST(PipelineSpec, ACycleIsRefusedWithTheCycleAndWhereItCloses) {
  const std::string yaml = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: loop}
spec:
  jobs:
    a:
      replicas: {worker: {command: [true]}}
      dependsOn:
        - {job: c}
    b:
      dependsOn: [{job: a}]
      replicas: {worker: {command: [true]}}
    c:
      dependsOn: [{job: b}]
      replicas: {worker: {command: [true]}}
)";
  auto spec = ParsePipelineSpec(yaml, "loop.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(Message(spec.status()),
            "loop.yaml:11:19: spec.jobs.b.dependsOn[0]: a cycle: a -> c -> b -> a (each waits "
            "for the next)")
      << spec.status();
}

TEST(PipelineSpec, ProblemsNameTheJobsFieldAndLine) {
  const std::string yaml = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: bad}
spec:
  jobs:
    prep:
      replicas: {worker: {count: 0, command: [true]}}
    train:
      dependsOn: [{job: perp}]
      replicas: {worker: {command: [true]}}
)";
  auto spec = ParsePipelineSpec(yaml, "bad.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(Message(spec.status()).find("bad.yaml:7:"), std::string::npos) << spec.status();
  EXPECT_NE(Message(spec.status()).find("spec.jobs.prep.replicas.worker.count"), std::string::npos)
      << spec.status();

  auto unknown = ParsePipelineSpec(
      R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: bad}
spec:
  jobs:
    train:
      dependsOn: [{job: perp, condition: sometimes}]
      replicas: {worker: {command: [true]}}
)",
      "bad.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(Message(unknown.status()).find("bad.yaml:7:"), std::string::npos);
  EXPECT_NE(Message(unknown.status()).find("unknown condition \"sometimes\""), std::string::npos)
      << unknown.status();
}

TEST(PipelineSpec, AnUnknownSiblingIsReportedAtItsEntry) {
  auto spec = ParsePipelineSpec(R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: bad}
spec:
  jobs:
    prep:
      replicas: {worker: {command: [true]}}
    train:
      dependsOn: [{job: perp}]
      replicas: {worker: {command: [true]}}
)",
                                "bad.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(Message(spec.status()),
            "bad.yaml:9:25: spec.jobs.train.dependsOn[0].job: no job perp in this pipeline (its "
            "jobs: prep, train)");
}

TEST(PipelineSpec, AnOutputMustComeFromAJobItDependsOn) {
  auto spec = ParsePipelineSpec(R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: bad}
spec:
  jobs:
    prep:
      replicas: {worker: {command: [true]}}
    train:
      replicas: {worker: {command: [ls, "${jobs.prep.outputDir}", "${jobs.prep.logs}"]}}
)",
                                "bad.yaml");
  ASSERT_FALSE(spec.ok());
  const std::string message = Message(spec.status());
  EXPECT_NE(message.find("spec.jobs.train.replicas.worker.command[1]: ${jobs.prep.outputDir}: "
                         "train does not depend on prep"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("spec.jobs.train.replicas.worker.command[2]: \"${jobs.prep.logs}\": "
                         "expected ${jobs.NAME.outputDir}"),
            std::string::npos)
      << message;
}

TEST(PipelineSpec, SubstitutesOutputFoldersInCommandsAndEnvironment) {
  auto spec = ParsePipelineSpec(kChain, "chain.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  JobSpec eval = spec->jobs[0].spec;
  ASSERT_TRUE(SubstituteJobOutputs(eval, {{"prep", "/s/jobs/12/output"}}).ok());
  EXPECT_EQ(eval.replicas[0].command[1], "/s/jobs/12/output/data.txt");
  JobSpec train = spec->jobs[1].spec;
  ASSERT_TRUE(SubstituteJobOutputs(train, {{"prep", "/s/jobs/12/output"}}).ok());
  EXPECT_EQ(train.replicas[0].env.at("DATA"), "/s/jobs/12/output");
  JobSpec missing = spec->jobs[0].spec;
  EXPECT_FALSE(SubstituteJobOutputs(missing, {{"train", "/x"}}).ok());
}

TEST(PipelineSpec, KindDispatch) {
  EXPECT_EQ(*SpecKind(kChain, "chain.yaml"), "Pipeline");
  EXPECT_EQ(*SpecKind("apiVersion: dlp/v1\nkind: Job\n", "job.yaml"), "Job");
  EXPECT_FALSE(SpecKind("a: [", "broken.yaml").ok());
}

TEST(PipelineSpec, StateFollowsItsJobs) {
  auto state = [](std::vector<JobState> states) {
    std::vector<PipelineJob> jobs;
    for (JobState s : states) jobs.push_back({"x", "1", s, "", {}});
    return PipelineState(jobs);
  };
  EXPECT_EQ(state({JobState::kQueued, JobState::kQueued}), JobState::kQueued);
  EXPECT_EQ(state({JobState::kSucceeded, JobState::kQueued}), JobState::kRunning);
  EXPECT_EQ(state({JobState::kSucceeded, JobState::kSucceeded}), JobState::kSucceeded);
  EXPECT_EQ(state({JobState::kFailed, JobState::kCancelled}), JobState::kFailed);
  EXPECT_EQ(state({JobState::kSucceeded, JobState::kCancelled}), JobState::kCancelled);
  std::vector<PipelineJob> skipped = {
      {"train", "1", JobState::kSucceeded, "", {}},
      {"report",
       "2",
       JobState::kCancelled,
       "dependency job 1 succeeded (this job runs only if it fails)",
       {"train"}}};
  EXPECT_EQ(PipelineState(skipped), JobState::kSucceeded);
}

TEST(PipelineCodec, StatusJsonHasExactlyTheDocumentedKeys) {
  Pipeline p{"4", "chain", JobState::kRunning, absl::FromUnixSeconds(1), {}};
  p.jobs.push_back({"prep", "12", JobState::kSucceeded, "", {}});
  p.jobs.push_back({"train", "13", JobState::kRunning, "", {"prep"}});
  EXPECT_EQ(
      PipelineStatusToJson(p, -1),
      R"({"id":"4","state":"Running","jobs":[{"name":"prep","job":"12","state":"Succeeded",)"
      R"("dependsOn":[]},{"name":"train","job":"13","state":"Running","dependsOn":["prep"]}]})");
  auto back = PipelineFromJson(PipelineToJson(p));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->name, "chain");
  EXPECT_EQ(back->jobs[1].depends_on, std::vector<std::string>{"prep"});
}

TEST(DependsOn, DecodesValidatesAndRoundTrips) {
  auto spec = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: eval}
spec:
  dependsOn: [{job: "12"}, {job: train, condition: finished}]
  replicas: {worker: {command: [true]}}
)",
                           "job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->depends_on.size(), 2u);
  EXPECT_EQ(spec->depends_on[1].condition, DependencyCondition::kFinished);
  auto back = JobSpecFromJson(JobSpecToJson(*spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *spec);
  auto again = ParseJobSpec(JobSpecToYaml(*spec), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->depends_on, spec->depends_on);

  auto twice = ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: eval}
spec:
  dependsOn: [{job: a}, {job: a}]
  replicas: {worker: {command: [true]}}
)",
                            "job.yaml");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(Message(twice.status()),
            "job.yaml:5:31: spec.dependsOn[1].job: job a is listed twice; first on line 5");

  JobSpec many = *spec;
  many.depends_on.clear();
  for (int i = 1; i <= 65; ++i) many.depends_on.push_back({std::to_string(i)});
  auto refused = ValidateJobSpec(many);
  EXPECT_NE(Message(refused).find("spec.dependsOn: 65 dependencies; at most 64"), std::string::npos)
      << refused;
}

TEST(DependsOn, VerdictsFollowTheConditions) {
  JobSpec spec;
  spec.depends_on = {{"12", DependencyCondition::kSucceeded}};
  std::map<std::string, JobState> states = {{"12", JobState::kRunning}};
  auto state_of = [&](const std::string& id) -> std::optional<JobState> {
    auto it = states.find(id);
    if (it == states.end()) return std::nullopt;
    return it->second;
  };
  auto check = CheckDependencies(spec, state_of);
  EXPECT_EQ(check.verdict, DependencyVerdict::kWaiting);
  EXPECT_EQ(check.reason, "waiting for job 12 (Running)");
  states["12"] = JobState::kFailed;
  check = CheckDependencies(spec, state_of);
  EXPECT_EQ(check.verdict, DependencyVerdict::kNever);
  EXPECT_EQ(check.reason, "dependency job 12 failed");
  spec.depends_on[0].condition = DependencyCondition::kFailed;
  EXPECT_EQ(CheckDependencies(spec, state_of).verdict, DependencyVerdict::kMet);
  spec.depends_on[0].condition = DependencyCondition::kFinished;
  EXPECT_EQ(CheckDependencies(spec, state_of).verdict, DependencyVerdict::kMet);
  states["12"] = JobState::kCancelled;
  spec.depends_on[0].condition = DependencyCondition::kSucceeded;
  EXPECT_EQ(CheckDependencies(spec, state_of).reason, "dependency job 12 was cancelled");
  spec.depends_on = {{"99"}};
  EXPECT_EQ(CheckDependencies(spec, state_of).reason, "dependency job 99 not found");
}

}  // namespace
}  // namespace dlp
