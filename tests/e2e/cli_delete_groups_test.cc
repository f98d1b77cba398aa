// `dlp sweep delete` and `dlp pipeline delete` through the real dlp and dlpd:
// refused while the sweep or pipeline runs, --force cancels it first; its
// jobs' records and folders go with it, registered models stay; a job of one
// is deleted only with it (even with --force, which then cancels nothing);
// another tenant's is not found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli_harness.h"
#include "remote_dlpd_fixture.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// A grid of two trials, each writing model.bin to its output folder, then
// running `then`.
std::string TwoTrialSweep(const CliEnv& env, const std::string& then) {
  return env.dir().WriteFile("sweep.yaml", absl::StrCat(R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: two}
spec:
  objective: {metric: score, goal: maximize}
  search: {algorithm: grid}
  parallelism: 2
  parameters:
    a: {type: categorical, values: ["1", "2"]}
  template:
    replicas:
      worker:
        command: [/bin/sh, -c, 'echo model > "$DLP_OUTPUT_DIR/model.bin"; echo "DLP_METRIC score=${params.a} step=1"; )",
                                                        then, R"(']
        resources: {cpu: 100m}
)"));
}

// The jobs of the sweep's trials, once both have one in `state`.
std::vector<std::string> TrialJobs(const CliEnv& env, const std::string& sweep,
                                   const std::string& state) {
  std::vector<std::string> jobs;
  const bool both = Eventually([&] {
    RunResult r = env.Dlp({"sweep", "status", sweep, "-o", "json"});
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    if (!j.is_object() || j["trials"].size() != 2) return false;
    jobs.clear();
    for (const auto& t : j["trials"]) {
      if (t.value("state", "") != state || !t["job"].is_string()) return false;
      jobs.push_back(t["job"]);
    }
    return true;
  });
  EXPECT_TRUE(both) << "the trials of sweep " << sweep << " never were all " << state;
  return jobs;
}

std::string Folder(const CliEnv& env, const std::string& job) {
  return env.StateDir() + "/jobs/" + job;
}

// `dlp GROUP delete --force ID` succeeds, and leaves nothing of the group
// (`group`: sweep or pipeline) nor of its jobs.
void ExpectForcedDeleteRemovesAll(const CliEnv& env, const std::string& group,
                                  const std::string& id, const std::vector<std::string>& jobs) {
  RunResult forced = env.Dlp({group, "delete", "--force", id});
  ASSERT_EQ(forced.exit_code, 0) << forced.out << forced.err;
  EXPECT_EQ(forced.out, group + " " + id + " deleted\n");
  EXPECT_EQ(env.Dlp({group, "status", id}).exit_code, 3);
  for (const std::string& job : jobs) {
    EXPECT_EQ(env.Dlp({"status", job}).exit_code, 3) << job;
    EXPECT_FALSE(FileExists(Folder(env, job))) << Folder(env, job);
  }
  EXPECT_EQ(env.Dlp({group, "delete", id}).exit_code, 3);
}

TEST(CliDeleteSweep, RefusedWhileRunningForceCancelsAndRemovesTheTrials) {
  CliEnv env;
  RunResult submitted = env.Dlp({"sweep", "submit", "-q", TwoTrialSweep(env, "sleep 300")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripAsciiWhitespace(submitted.out));
  const std::vector<std::string> jobs = TrialJobs(env, id, "Running");
  ASSERT_EQ(jobs.size(), 2u);

  RunResult refused = env.Dlp({"sweep", "delete", id});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("cancel it first (dlp sweep cancel " + id + ")"));
  EXPECT_EQ(env.State(jobs[0]), "Running");
  // A trial's job goes only with its sweep (and cancelling it would not help).
  RunResult trial = env.Dlp({"delete", jobs[0]});
  EXPECT_EQ(trial.exit_code, 2) << trial.out << trial.err;
  EXPECT_THAT(trial.err, HasSubstr("belongs to sweep " + id + ": it is deleted with it"));
  // --force is refused the same way, and ends nothing.
  RunResult forced_trial = env.Dlp({"delete", "--force", jobs[0]});
  EXPECT_EQ(forced_trial.exit_code, 2) << forced_trial.out << forced_trial.err;
  EXPECT_THAT(forced_trial.err, HasSubstr("belongs to sweep " + id));
  EXPECT_EQ(env.State(jobs[0]), "Running");

  ExpectForcedDeleteRemovesAll(env, "sweep", id, jobs);
}

TEST(CliDeleteSweep, AnEndedSweepGoesWithItsJobsButNotItsModels) {
  CliEnv env;
  RunResult submitted =
      env.Dlp({"sweep", "submit", "-q", "--follow", TwoTrialSweep(env, "true")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripAsciiWhitespace(submitted.out));
  const std::vector<std::string> jobs = TrialJobs(env, id, "Succeeded");
  ASSERT_EQ(jobs.size(), 2u);
  ASSERT_TRUE(FileExists(Folder(env, jobs[1]) + "/output/model.bin"));
  RunResult registered =
      env.Dlp({"model", "register", "swept", "--job", jobs[1], "--path", "model.bin"});
  ASSERT_EQ(registered.exit_code, 0) << registered.err;

  RunResult deleted = env.Dlp({"sweep", "delete", id});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.out << deleted.err;
  EXPECT_EQ(deleted.out, "sweep " + id + " deleted\n");
  for (const std::string& job : jobs) EXPECT_FALSE(FileExists(Folder(env, job))) << job;
  RunResult listed = env.Dlp({"sweep", "list", "-o", "json"});
  EXPECT_EQ(listed.out, "[]\n") << listed.out;
  RunResult fetched = env.Dlp({"model", "get", "swept", "-o", env.Work("fetched")});
  EXPECT_EQ(fetched.exit_code, 0) << fetched.err;
  EXPECT_EQ(ReadFileOrEmpty(env.Work("fetched/model.bin")), "model\n");
}

// a, then b (which runs until cancelled); both write to their output folders.
std::string TwoStagePipeline(const CliEnv& env) {
  return env.dir().WriteFile("pipeline.yaml", absl::StrCat(R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: stages}
spec:
  jobs:
    a:
      replicas: {worker: {command: [/bin/sh, -c, 'echo a > "$DLP_OUTPUT_DIR/a"'], resources: {cpu: 100m}}}
    b:
      dependsOn: [{job: a}]
      replicas:
        worker:
          command: [/bin/sh, -c, 'echo b > "$DLP_OUTPUT_DIR/b"; touch )",
                                                           env.Work("b-started"), R"(; sleep 300']
          resources: {cpu: 100m}
)"));
}

TEST(CliDeletePipeline, RefusedWhileRunningForceCancelsAndRemovesEveryStage) {
  CliEnv env;
  RunResult submitted = env.Dlp({"submit", "-q", TwoStagePipeline(env)});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripAsciiWhitespace(submitted.out));
  ASSERT_TRUE(Eventually([&] { return FileExists(env.Work("b-started")); }));
  nlohmann::json status =
      nlohmann::json::parse(env.Dlp({"pipeline", "status", id, "-o", "json"}).out, nullptr, false);
  ASSERT_TRUE(status.is_object());
  std::vector<std::string> jobs;
  for (const auto& j : status["jobs"]) jobs.push_back(j.value("job", ""));
  ASSERT_EQ(jobs.size(), 2u);
  ASSERT_EQ(env.State(jobs[0]), "Succeeded");

  RunResult refused = env.Dlp({"pipeline", "delete", id});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("job " + jobs[1]));
  EXPECT_THAT(refused.err, HasSubstr("cancel it first (dlp pipeline cancel " + id + ")"));
  RunResult stage = env.Dlp({"delete", jobs[0]});
  EXPECT_EQ(stage.exit_code, 2) << stage.out << stage.err;
  EXPECT_THAT(stage.err, HasSubstr("(dlp pipeline delete " + id + ")"));
  EXPECT_TRUE(FileExists(Folder(env, jobs[0]) + "/output/a"));

  ExpectForcedDeleteRemovesAll(env, "pipeline", id, jobs);
}

TEST(CliDeleteHelp, SaysWhereSweepsAndPipelinesAreDeleted) {
  CliEnv env;
  RunResult help = env.Dlp({"delete", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_THAT(help.out, HasSubstr("dlp sweep delete"));
  EXPECT_THAT(help.out, HasSubstr("dlp pipeline delete"));
  for (const char* group : {"sweep", "pipeline"}) {
    RunResult verb = env.Dlp({group, "delete", "--help"});
    EXPECT_EQ(verb.exit_code, 0) << group << ": " << verb.err;
    EXPECT_THAT(verb.out, HasSubstr("--force")) << group;
    EXPECT_EQ(env.Dlp({group, "delete"}).exit_code, 2) << group;  // an id is required
  }
}

// The owner's pipeline and sweep are not found for tenant alice, who can
// delete neither; the owner still can.
TEST_F(RemoteDlpdTest, AnotherTenantsSweepAndPipelineAreNotFound) {
  ASSERT_EQ(Dlp({"admin", "tenant", "create", "alice", "--user", "dlptest-a"}).exit_code, 0);
  RunResult token = Dlp({"admin", "token", "create", "alice"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  WriteConfig(std::string(absl::StripAsciiWhitespace(token.out)));

  RunResult sweep = Dlp({"sweep", "submit", "-q", "--follow", TwoTrialSweep(env_, "true")});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  const std::string sweep_id(absl::StripAsciiWhitespace(sweep.out));
  const std::string pipeline_file = env_.dir().WriteFile("quick.yaml", R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: quick}
spec:
  jobs:
    only: {replicas: {worker: {command: ['true'], resources: {cpu: 100m}}}}
)");
  RunResult pipeline = Dlp({"submit", "-q", "--wait", pipeline_file});
  ASSERT_EQ(pipeline.exit_code, 0) << pipeline.err;
  const std::string pipeline_id(absl::StripAsciiWhitespace(pipeline.out));

  RunResult sweep_denied = Dlp({"--context", "alice", "sweep", "delete", sweep_id});
  EXPECT_EQ(sweep_denied.exit_code, 3) << sweep_denied.out << sweep_denied.err;
  RunResult pipeline_denied =
      Dlp({"--context", "alice", "pipeline", "delete", "--force", pipeline_id});
  EXPECT_EQ(pipeline_denied.exit_code, 3) << pipeline_denied.out << pipeline_denied.err;
  EXPECT_EQ(Dlp({"sweep", "status", sweep_id}).exit_code, 0);
  EXPECT_EQ(Dlp({"pipeline", "status", pipeline_id}).exit_code, 0);

  EXPECT_EQ(Dlp({"sweep", "delete", sweep_id}).exit_code, 0);
  EXPECT_EQ(Dlp({"pipeline", "delete", pipeline_id}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
