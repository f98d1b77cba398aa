// Pipelines through the real dlp and dlpd: a chain whose last job reads what
// the first wrote through ${jobs.prep.outputDir}, status as a tree and as
// JSON, a failure cancelling what depends on it, a cycle refused at submit
// with file:line, cancel cascading, and dependsOn shown by status/describe.
#include "e2e/cli_harness.h"
#include "e2e/pipeline_files.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// prep writes into its output folder (DLP_OUTPUT_DIR, or the folder dlpd lays
// out beside its logs), train copies it along, eval prints it.
constexpr char kChain[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: chain}
spec:
  jobs:
    prep:
      replicas:
        worker:
          command:
            - /bin/sh
            - -c
            - out="${DLP_OUTPUT_DIR:-$(dirname "$DLP_TRACE_DIR")/output}"; mkdir -p "$out"; echo payload-42 > "$out/data.txt"
          resources: {cpu: 100m}
    train:
      dependsOn: [{job: prep}]
      replicas:
        worker:
          command: [/bin/sh, -c, 'cat "$DATA/data.txt"']
          env: {DATA: "${jobs.prep.outputDir}"}
          resources: {cpu: 100m}
    eval:
      dependsOn: [{job: train, condition: succeeded}]
      replicas:
        worker:
          command: [cat, "${jobs.prep.outputDir}/data.txt"]
          resources: {cpu: 100m}
)";

std::string Line(const std::string& text, const std::string& prefix) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

TEST(CliPipeline, AChainPassesAnOutputAlongAndShowsAsATree) {
  CliEnv env;
  const std::string file = env.dir().WriteFile("chain.yaml", kChain);
  RunResult submitted = env.Dlp({"submit", file, "--wait"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  EXPECT_THAT(submitted.out, HasSubstr("pipeline 1 submitted (chain): jobs prep="));

  RunResult json = env.Dlp({"pipeline", "status", "1", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto status = nlohmann::json::parse(json.out);
  EXPECT_EQ(status.size(), 3u) << json.out;  // exactly id, state, jobs
  EXPECT_EQ(status.value("id", ""), "1");
  EXPECT_EQ(status.value("state", ""), "Succeeded");
  ASSERT_EQ(status["jobs"].size(), 3u);
  std::map<std::string, std::string> ids;
  for (const auto& job : status["jobs"]) {
    EXPECT_EQ(job.size(), 4u) << job.dump();  // name, job, state, dependsOn
    EXPECT_EQ(job.value("state", ""), "Succeeded") << job.dump();
    ids[job.value("name", "")] = job.value("job", "");
  }
  EXPECT_EQ(status["jobs"][2]["dependsOn"], nlohmann::json::array({"train"}));
  for (const char* name : {"train", "eval"}) {
    RunResult logs = env.Dlp({"logs", ids[name]});
    EXPECT_THAT(logs.out, HasSubstr("payload-42")) << name << ": " << logs.err;
  }

  RunResult tree = env.Dlp({"pipeline", "status", "1"});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, HasSubstr("pipeline 1 (chain): Succeeded"));
  EXPECT_THAT(tree.out, HasSubstr(absl::StrCat("prep  job ", ids["prep"], "  Succeeded")));
  EXPECT_THAT(tree.out, HasSubstr(absl::StrCat("└─ train  job ", ids["train"])));
  EXPECT_THAT(tree.out, HasSubstr(absl::StrCat("   └─ eval  job ", ids["eval"])));
  RunResult list = env.Dlp({"pipeline", "list"});
  EXPECT_THAT(Line(list.out, "1 "), HasSubstr("chain")) << list.out;
  EXPECT_THAT(Line(list.out, "1 "), HasSubstr("3/3")) << list.out;

  RunResult describe = env.Dlp({"describe", ids["eval"]});
  EXPECT_THAT(describe.out,
              HasSubstr(absl::StrCat("Depends on:  job ", ids["train"], " (succeeded)")));
  RunResult job_status = env.Dlp({"status", ids["train"]});
  EXPECT_THAT(job_status.out,
              HasSubstr(absl::StrCat("depends on: job ", ids["prep"], " (succeeded)")));
}

// --follow streams each job's logs in turn, prefixed with its name in the pipeline.
TEST(CliPipeline, FollowStreamsEachJobsLogsWithItsName) {
  CliEnv env;
  const std::string file = env.dir().WriteFile("chain.yaml", kChain);
  RunResult followed = env.Dlp({"submit", file, "--follow"});
  ASSERT_EQ(followed.exit_code, 0) << followed.out << followed.err;
  EXPECT_THAT(followed.out, HasSubstr("[train/worker-0] payload-42\n"));
  EXPECT_THAT(followed.out, HasSubstr("[eval/worker-0] payload-42\n"));
  EXPECT_LT(followed.out.find("[train/worker-0]"), followed.out.find("[eval/worker-0]"));
  EXPECT_THAT(followed.err, HasSubstr("pipeline 1 Succeeded"));
}

TEST(CliPipeline, AFailureCancelsWhatDependsOnIt) {
  CliEnv env;
  const std::string file = env.dir().WriteFile("fails.yaml", R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: fails}
spec:
  jobs:
    prep:
      replicas: {worker: {command: [/bin/sh, -c, 'exit 3'], resources: {cpu: 100m}}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: ['true'], resources: {cpu: 100m}}}
    eval:
      dependsOn: [{job: train}]
      replicas: {worker: {command: ['true'], resources: {cpu: 100m}}}
    report:
      dependsOn: [{job: prep, condition: failed}]
      replicas: {worker: {command: [echo, reported], resources: {cpu: 100m}}}
)");
  RunResult submitted = env.Dlp({"submit", file, "--wait", "-q"});
  EXPECT_EQ(submitted.exit_code, 1) << submitted.out << submitted.err;
  auto status = nlohmann::json::parse(env.Dlp({"pipeline", "status", "1", "-o", "json"}).out);
  EXPECT_EQ(status.value("state", ""), "Failed");
  std::map<std::string, std::string> states, ids;
  for (const auto& job : status["jobs"]) {
    states[job.value("name", "")] = job.value("state", "");
    ids[job.value("name", "")] = job.value("job", "");
  }
  EXPECT_EQ(states["prep"], "Failed");
  EXPECT_EQ(states["train"], "Cancelled");
  EXPECT_EQ(states["eval"], "Cancelled");
  EXPECT_EQ(states["report"], "Succeeded");
  auto eval = nlohmann::json::parse(env.Dlp({"status", ids["eval"], "-o", "json"}).out);
  EXPECT_EQ(eval.value("reason", ""),
            absl::StrCat("dependency job ", ids["train"], " was cancelled"));
  RunResult tree = env.Dlp({"pipeline", "status", "1"});
  EXPECT_THAT(tree.out, HasSubstr(absl::StrCat("dependency job ", ids["prep"], " failed")));
}

TEST(CliPipeline, ACycleIsRefusedAtSubmitWithItsLine) {
  CliEnv env;
  const std::string file = env.dir().WriteFile("cycle.yaml", kCyclePipeline);
  RunResult r = env.Dlp({"submit", file});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr(file + ":10:19: spec.jobs.train.dependsOn[0]: a cycle: "
                                      "prep -> eval -> train -> prep"));
  EXPECT_EQ(env.Dlp({"pipeline", "list", "-o", "json"}).out.find("cycle"), std::string::npos);
}

TEST(CliPipeline, CancelCascadesToEveryJobNotEnded) {
  CliEnv env;
  const std::string file = env.dir().WriteFile(
      "long.yaml", absl::StrCat(R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: long}
spec:
  jobs:
    first:
      replicas:
        worker:
          command: [/bin/sh, -c, 'touch )",
                                env.Work("started"), R"(; while :; do sleep 0.05; done']
          resources: {cpu: 100m}
    second:
      dependsOn: [{job: first}]
      replicas: {worker: {command: ['true'], resources: {cpu: 100m}}}
)"));
  RunResult submitted = env.Dlp({"submit", file, "-q"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id = std::string(absl::StripAsciiWhitespace(submitted.out));
  ASSERT_TRUE(Eventually([&] { return access(env.Work("started").c_str(), F_OK) == 0; }));
  RunResult cancel = env.Dlp({"pipeline", "cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  ASSERT_TRUE(Eventually([&] {
    auto status = nlohmann::json::parse(env.Dlp({"pipeline", "status", id, "-o", "json"}).out,
                                        nullptr, false);
    return status.is_object() && status.value("state", "") == "Cancelled";
  }));
  auto status = nlohmann::json::parse(env.Dlp({"pipeline", "status", id, "-o", "json"}).out);
  for (const auto& job : status["jobs"]) EXPECT_EQ(job.value("state", ""), "Cancelled");
  EXPECT_EQ(env.Dlp({"pipeline", "status", "99"}).exit_code, 3);
}

}  // namespace
}  // namespace dlp::testing
