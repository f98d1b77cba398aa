// `dlp sweep` through the real dlp and dlpd: submit (and `dlp submit` of a
// kind: Sweep file), the leaderboard and its JSON, the trials as labelled
// jobs, --plot, a foreground sweep driven and resumed by dlp itself, cancel,
// and a short real fmnist-train trial.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli_harness.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// A grid of 4 whose trials print score = A·10 + B at epoch 1.
std::string GridSweep(const CliEnv& env, const std::string& name) {
  return env.dir().WriteFile(name + ".yaml", absl::StrCat(R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: )",
                                                          name, R"(}
spec:
  objective: {metric: score, goal: maximize}
  search: {algorithm: grid}
  parallelism: 2
  parameters:
    a: {type: int, min: 1, max: 2}
    b: {type: categorical, values: [3, 4]}
  template:
    workdir: /tmp
    replicas:
      worker:
        command: [/bin/sh, -c, 'echo "DLP_METRIC score=${params.a}${params.b} step=1"']
        resources: {cpu: 100m}
)"));
}

std::string FirstWord(const std::string& out, size_t skip_words) {
  std::vector<std::string> words = absl::StrSplit(out, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  return words.size() > skip_words ? words[skip_words] : "";
}

TEST(CliSweep, SubmitFollowStatusJsonAndLabelledJobs) {
  CliEnv env;
  RunResult r = env.Dlp({"sweep", "submit", "--follow", GridSweep(env, "grid")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("sweep [0-9]+ submitted \\(grid\\)"));
  const std::string id = FirstWord(r.out, 1);
  // The leaderboard at the end: best first.
  EXPECT_THAT(r.out, HasSubstr("TRIAL"));
  EXPECT_LT(r.out.find("a=2 b=4"), r.out.find("a=1 b=3")) << r.out;

  RunResult status = env.Dlp({"sweep", "status", id, "-o", "json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  nlohmann::json j = nlohmann::json::parse(status.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_THAT(keys, ::testing::UnorderedElementsAre("id", "state", "objective", "best", "trials"));
  EXPECT_EQ(j["state"], "Succeeded");
  EXPECT_EQ(j["objective"]["metric"], "score");
  EXPECT_EQ(j["objective"]["goal"], "maximize");
  EXPECT_EQ(j["best"]["objective"], 24);
  EXPECT_EQ(j["best"]["params"]["a"], 2);  // an int parameter is a number
  ASSERT_EQ(j["trials"].size(), 4u);
  for (const auto& t : j["trials"]) {
    std::vector<std::string> tkeys;
    for (const auto& [k, v] : t.items()) tkeys.push_back(k);
    EXPECT_THAT(tkeys, ::testing::UnorderedElementsAre("job", "params", "objective", "resource",
                                                       "state", "reason", "outcome"));
    EXPECT_EQ(t["state"], "Succeeded");
    EXPECT_EQ(t["outcome"], "finished");
    EXPECT_EQ(t["resource"], 1);
  }

  RunResult listed = env.Dlp({"list", "--label", "dlp.dev/sweep=" + id, "-o", "json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["jobs"].size(), 4u);

  RunResult sweeps = env.Dlp({"sweep", "list"});
  ASSERT_EQ(sweeps.exit_code, 0) << sweeps.err;
  EXPECT_THAT(sweeps.out, HasSubstr("grid"));

  RunResult plot = env.Dlp({"sweep", "status", id, "--plot"});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_THAT(plot.out, HasSubstr("score by epoch"));
  EXPECT_THAT(plot.out, HasSubstr("trial 4"));
  const std::string png = env.dir().Join("sweep.png");
  ASSERT_EQ(env.Dlp({"sweep", "status", id, "--png", png}).exit_code, 0);
  EXPECT_EQ(ReadFileOrEmpty(png).substr(1, 3), "PNG");

  EXPECT_EQ(env.Dlp({"sweep", "status", "999"}).exit_code, 3);
}

TEST(CliSweep, PlainSubmitOfASweepFileTakesTheSweepPath) {
  CliEnv env;
  RunResult r = env.Dlp({"submit", "--wait", GridSweep(env, "via-submit")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("sweep "));
  RunResult bad = env.Dlp({"submit", env.dir().WriteFile("bad.yaml", R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: bad}
spec:
  objective: {metric: score}
  search: {algorithm: random}
  maxTrials: 2
  parameters: {lr: {type: float, min: 0, max: 1}}
  template:
    replicas: {worker: {command: [echo, "${params.rate}"]}}
)")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("bad.yaml:10:41: spec.template.replicas.worker.command[1]: "
                                 "unknown parameter 'rate' in ${params.rate}; parameters: lr"));
}

TEST(CliSweep, AForegroundSweepIsDrivenByDlpAndResumed) {
  CliEnv env;
  // Submitted without --follow: recorded, nothing runs until it is resumed.
  RunResult r = env.Dlp({"sweep", "submit", "--foreground", "-q", GridSweep(env, "fg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id(absl::StripAsciiWhitespace(r.out));
  ASSERT_TRUE(absl::StartsWith(id, "local-")) << id;
  EXPECT_EQ(access((env.StateDir() + "/sweeps/" + id + ".json").c_str(), F_OK), 0);
  EXPECT_THAT(r.err, HasSubstr("dlp sweep resume " + id));
  RunResult resumed = env.Dlp({"sweep", "resume", id});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  RunResult status = env.Dlp({"sweep", "status", id, "-o", "json"});
  nlohmann::json j = nlohmann::json::parse(status.out);
  EXPECT_EQ(j["state"], "Succeeded");
  EXPECT_EQ(j["trials"].size(), 4u);
  RunResult listed = env.Dlp({"list", "--label", "dlp.dev/sweep=" + id, "-o", "json"});
  EXPECT_EQ(nlohmann::json::parse(listed.out)["jobs"].size(), 4u);
}

TEST(CliSweep, CancelStopsTheRunningTrials) {
  CliEnv env;
  const std::string file = env.dir().WriteFile("slow.yaml", R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: slow}
spec:
  objective: {metric: score, goal: minimize}
  search: {algorithm: random, seed: 3}
  maxTrials: 5
  parallelism: 2
  parameters: {x: {type: int, min: 1, max: 9}}
  template:
    workdir: /tmp
    replicas: {worker: {command: [sleep, "600"], resources: {cpu: 100m}}}
)");
  RunResult r = env.Dlp({"sweep", "submit", "-q", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id(absl::StripAsciiWhitespace(r.out));
  ASSERT_TRUE(Eventually([&] {
    RunResult s = env.Dlp({"sweep", "status", id, "-o", "json"});
    nlohmann::json j = nlohmann::json::parse(s.out, nullptr, false);
    int running = 0;
    for (const auto& t : j.value("trials", nlohmann::json::array()))
      running += t["state"] == "Running";
    return running == 2;
  }));
  ASSERT_EQ(env.Dlp({"sweep", "cancel", id}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] {
    nlohmann::json j =
        nlohmann::json::parse(env.Dlp({"sweep", "status", id, "-o", "json"}).out, nullptr, false);
    for (const auto& t : j.value("trials", nlohmann::json::array())) {
      if (t["state"] != "Cancelled") return false;
    }
    return j.value("state", "") == "Cancelled";
  }));
  nlohmann::json j = nlohmann::json::parse(env.Dlp({"sweep", "status", id, "-o", "json"}).out);
  EXPECT_EQ(j["trials"].size(), 2u);
  EXPECT_EQ(j["trials"][0]["reason"], "sweep cancelled");
}

TEST(CliSweep, ARealFmnistTrainTrialReportsTestAccuracyPerEpoch) {
  CliEnv env;
  if (access("/usr/share/datasets/fashion-mnist", R_OK) != 0) {
    GTEST_SKIP() << "no Fashion-MNIST data (dataset-fashion-mnist)";
  }
  const std::string file = env.dir().WriteFile(
      "fmnist.yaml", absl::StrCat(R"(apiVersion: dlp/v1
kind: Sweep
metadata: {name: fmnist}
spec:
  objective: {metric: test_accuracy, goal: maximize}
  search: {algorithm: asha, min: 1, max: 2, reductionFactor: 2, seed: 1}
  maxTrials: 1
  parameters:
    lr: {type: logfloat, min: 0.05, max: 0.1}
    hidden: {type: categorical, values: [32]}
  template:
    workdir: /tmp
    replicas:
      worker:
        command: [)",
                                  BinPath("fmnist-train"), R"(, --device, cpu, --lr, "${params.lr}",
                  --hidden, "${params.hidden}", --epochs, "${resource}",
                  --limit-train, "500", --limit-test, "200"]
        resources: {cpu: 1}
)"));
  RunResult r = env.Dlp({"sweep", "submit", "--follow", "-q", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string id = FirstWord(r.out, 0);
  nlohmann::json j = nlohmann::json::parse(env.Dlp({"sweep", "status", id, "-o", "json"}).out);
  ASSERT_EQ(j["trials"].size(), 1u);
  EXPECT_EQ(j["trials"][0]["state"], "Succeeded");
  EXPECT_EQ(j["trials"][0]["resource"], 2);  // two epochs
  EXPECT_GT(j["trials"][0]["objective"].get<double>(), 0.3);
  EXPECT_EQ(j["trials"][0]["params"]["hidden"], "32");  // categorical: as written
}

}  // namespace
}  // namespace dlp::testing
