// kind: Pipeline on a real single-node Slurm, without dlpd: the jobs go to
// sbatch with --dependency on their upstream jobs' ids, outputs pass along
// through the shared job folders, a failed upstream job cancels its
// dependents (Slurm's --kill-on-invalid-dep), cancel cascades, and a
// submission refused half-way leaves nothing behind. Skips without the
// test cluster.
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

class SlurmPipelineTest : public ::testing::TestWithParam<std::string> {
 protected:
  // A pipeline file; `jobs` is the YAML under spec.jobs, indented by 4.
  std::string WritePipeline(const std::string& name, const std::string& jobs) const {
    return env_.dir().WriteFile(name + ".yaml",
                                "apiVersion: dlp/v1\nkind: Pipeline\n"
                                "metadata: {name: " +
                                    name +
                                    "}\n"
                                    "spec:\n  jobs:\n" +
                                    jobs);
  }

  // `dlp pipeline status ID -o json`, parsed; null when it fails.
  nlohmann::json Status(const std::string& id) const {
    RunResult r = env_.Dlp({"pipeline", "status", id, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  SlurmEnv env_{GetParam()};
};

TEST_P(SlurmPipelineTest, OutputsPassAlongAndAllSucceed) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string file = WritePipeline("chain", R"(    prep:
      replicas: {worker: {command: [/bin/sh, -c, 'echo data > $DLP_OUTPUT_DIR/data.txt']}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: [/bin/sh, -c, 'cat ${jobs.prep.outputDir}/data.txt > $DLP_OUTPUT_DIR/model.txt && echo trained >> $DLP_OUTPUT_DIR/model.txt']}}
    eval:
      dependsOn: [{job: train, condition: succeeded}]
      replicas: {worker: {command: [/bin/sh, -c, 'cp ${jobs.train.outputDir}/model.txt $DLP_OUTPUT_DIR/seen.txt']}}
)");
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"}, absl::Seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string id = SlurmEnv::IdFrom(r);

  nlohmann::json p = Status(id);
  ASSERT_TRUE(p.is_object());
  EXPECT_EQ(p["id"], id);
  EXPECT_EQ(p["state"], "Succeeded");
  ASSERT_EQ(p["jobs"].size(), 3u) << p.dump();
  EXPECT_EQ(p["jobs"][0]["job"], id);  // the pipeline's id is its first job's
  EXPECT_EQ(p["jobs"][2]["name"], "eval");
  EXPECT_EQ(p["jobs"][2]["dependsOn"], nlohmann::json::array({"train"}));
  // Slurm enforced the order: eval read what prep and train wrote.
  const std::string eval = p["jobs"][2]["job"];
  const std::string out = env_.dir().Join("out");
  ASSERT_EQ(env_.Dlp({"artifacts", "get", eval, "seen.txt", "-o", out}).exit_code, 0);
  EXPECT_EQ(ReadFileOrEmpty(out + "/seen.txt"), "data\ntrained\n");

  RunResult list = env_.Dlp({"pipeline", "list", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(absl::StrContains(list.out, "\"chain\"")) << list.out;
  RunResult tree = env_.Dlp({"pipeline", "status", id});
  EXPECT_TRUE(absl::StrContains(tree.out, "└─ eval")) << tree.out;
}

TEST_P(SlurmPipelineTest, FailedUpstreamJobCancelsItsDependent) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string file = WritePipeline("broken", R"(    prep:
      replicas: {worker: {command: [/bin/sh, -c, 'exit 3']}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: ['true']}}
)");
  RunResult r = env_.Dlp({"submit", file, "--wait", "-q"}, absl::Seconds(240));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the pipeline failed
  const std::string id = SlurmEnv::IdFrom(r);
  nlohmann::json p = Status(id);
  ASSERT_TRUE(p.is_object());
  EXPECT_EQ(p["state"], "Failed");
  EXPECT_EQ(p["jobs"][0]["state"], "Failed");
  EXPECT_EQ(p["jobs"][1]["state"], "Cancelled");
  nlohmann::json train = env_.Status(p["jobs"][1]["job"]);
  EXPECT_EQ(train.value("reason", ""), "dependency job " + id + " failed") << train.dump();
}

TEST_P(SlurmPipelineTest, CancelCascades) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string file = WritePipeline("long", R"(    a:
      replicas: {worker: {command: [sleep, '600']}}
    b:
      dependsOn: [{job: a}]
      replicas: {worker: {command: ['true']}}
    c:
      dependsOn: [{job: b, condition: finished}]
      replicas: {worker: {command: ['true']}}
)");
  RunResult r = env_.Dlp({"submit", file, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id = SlurmEnv::IdFrom(r);
  RunResult cancel = env_.Dlp({"pipeline", "cancel", id});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(cancel.out, "pipeline " + id + " cancelled\n");
  nlohmann::json p = Status(id);
  ASSERT_EQ(p["jobs"].size(), 3u) << p.dump();
  for (const nlohmann::json& job : p["jobs"]) {
    // Exit code 5: the job ended Cancelled.
    EXPECT_EQ(env_.Dlp({"wait", job["job"]}, absl::Seconds(120)).exit_code, 5) << job.dump();
  }
  EXPECT_EQ(Status(id)["state"], "Cancelled");
}

TEST_P(SlurmPipelineTest, RefusedHalfWayCancelsWhatWasSubmitted) {
  DLP_SKIP_WITHOUT_SLURM(env_);
  const std::string file = WritePipeline("half", R"(    prep:
      replicas: {worker: {command: [sleep, '600']}}
    train:
      dependsOn: [{job: prep}]
      queue: no-such-partition
      replicas: {worker: {command: ['true']}}
)");
  RunResult r = env_.Dlp({"submit", file});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "spec.jobs.train: ")) << r.err;
  const std::string marker = "cancelled the jobs already submitted (prep=";
  const size_t at = r.err.find(marker);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string prep =
      r.err.substr(at + marker.size(), r.err.find(')', at) - at - marker.size());
  EXPECT_EQ(env_.Dlp({"wait", prep}, absl::Seconds(120)).exit_code, 5);
  RunResult list = env_.Dlp({"pipeline", "list", "-o", "json"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_FALSE(absl::StrContains(list.out, "\"half\"")) << list.out;
  EXPECT_EQ(env_.Dlp({"pipeline", "status", prep}).exit_code, 3);  // no such pipeline
}

INSTANTIATE_TEST_SUITE_P(Transports, SlurmPipelineTest, ::testing::Values("cli", "rest"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dlp::testing
