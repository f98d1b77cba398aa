// `dlp validate` and `dlp render` of the other kinds of spec file: a
// pipeline (its whole graph and every job, a cycle with file:line; each job
// rendered, Slurm's --dependency naming the upstream ids to come) and a sweep
// (its template and parameters; its first trial rendered).
#include "e2e/cli_harness.h"
#include "e2e/pipeline_files.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kChain[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: chain}
spec:
  jobs:
    prep:
      replicas: {worker: {command: [/bin/sh, -c, 'echo data > $DLP_OUTPUT_DIR/d']}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: [cat, '${jobs.prep.outputDir}/d']}}
    eval:
      dependsOn: [{job: train, condition: finished}, {job: prep, condition: failed}]
      replicas: {worker: {command: ['true']}}
)";

constexpr char kSweep[] = R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: grid}
spec:
  objective: {metric: score, goal: maximize}
  search: {algorithm: grid}
  parameters:
    a: {type: int, min: 1, max: 2}
    b: {type: categorical, values: [x, y]}
  template:
    replicas:
      worker:
        command: [echo, 'a=${params.a}', 'b=${params.b}']
)";

TEST(CliSpecKinds, ValidateChecksAPipelinesGraphAndJobs) {
  CliEnv env;
  const std::string chain = env.dir().WriteFile("chain.yaml", kChain);
  RunResult ok = env.Dlp({"validate", chain});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, chain + ": valid (pipeline chain, 3 jobs)\n");

  const std::string cycle = env.dir().WriteFile("cycle.yaml", kCyclePipeline);
  for (const char* command : {"validate", "render"}) {
    RunResult r = env.Dlp({command, cycle});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out;
    EXPECT_THAT(r.err, HasSubstr(cycle + ":10:19: spec.jobs.train.dependsOn[0]: a cycle: "
                                         "prep -> eval -> train -> prep"))
        << command;
  }

  // A job's own problem, under its path in the pipeline.
  std::string bad = kChain;
  bad.replace(bad.find("    train:\n"), 0,
              "    late:\n      replicas: {worker: {count: 0, command: [x]}}\n");
  const std::string bad_file = env.dir().WriteFile("bad.yaml", bad);
  RunResult r = env.Dlp({"validate", bad_file});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr(bad_file + ":9:"));
  EXPECT_THAT(r.err, HasSubstr("spec.jobs.late.replicas.worker.count"));

  RunResult set = env.Dlp({"validate", chain, "--set", "spec.priority=1"});
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_THAT(set.err, HasSubstr("not to a pipeline"));
}

TEST(CliSpecKinds, RenderShowsEachJobOfAPipeline) {
  CliEnv env;
  const std::string chain = env.dir().WriteFile("chain.yaml", kChain);
  RunResult r = env.Dlp({"render", "--backend", "slurm", chain});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# job prep of pipeline chain\n#!/bin/bash\n"));
  EXPECT_THAT(r.out, HasSubstr("# job train of pipeline chain\n"));
  EXPECT_THAT(r.out, HasSubstr("#SBATCH --dependency=afterok:${jobs.prep.id}\n"
                               "#SBATCH --kill-on-invalid-dep=yes\n"));
  EXPECT_THAT(r.out, HasSubstr("#SBATCH --dependency=afterany:${jobs.train.id},"
                               "afternotok:${jobs.prep.id}\n"));
  // Known once prep is submitted: its folder stays a placeholder.
  EXPECT_THAT(r.out, HasSubstr("${jobs.prep.outputDir}/d"));
  // prep, train, eval: each after what it depends on.
  EXPECT_LT(r.out.find("# job prep"), r.out.find("# job train"));
  EXPECT_LT(r.out.find("# job train"), r.out.find("# job eval"));

  RunResult local = env.Dlp({"render", "--backend", "local", chain});
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_THAT(local.out, HasSubstr("# job eval of pipeline chain\n"));
}

TEST(CliSpecKinds, ValidateAndRenderASweep) {
  CliEnv env;
  const std::string sweep = env.dir().WriteFile("sweep.yaml", kSweep);
  RunResult ok = env.Dlp({"validate", sweep});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, sweep + ": valid (sweep grid, 2 parameters, grid search)\n");

  RunResult r = env.Dlp({"render", "--backend", "slurm", sweep});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# trial 1 of sweep grid: a=1 b=x\n#!/bin/bash\n"));
  EXPECT_THAT(r.out, HasSubstr("\"a=1\""));
  EXPECT_THAT(r.out, Not(HasSubstr("${params")));

  std::string bad = kSweep;
  bad.replace(bad.find("${params.b}"), 11, "${params.c}");
  const std::string bad_file = env.dir().WriteFile("bad-sweep.yaml", bad);
  for (const char* command : {"validate", "render"}) {
    RunResult e = env.Dlp({command, bad_file});
    EXPECT_EQ(e.exit_code, 2) << command << ": " << e.out;
    EXPECT_THAT(e.err, HasSubstr(bad_file + ":13:"));
    EXPECT_THAT(e.err, HasSubstr("unknown parameter 'c'"));
  }
}

}  // namespace
}  // namespace dlp::testing
