// Pipelines through the real dlp CLI on a `kubernetes` context against the
// fake API server (the test is the cluster): a chain of three jobs passing an
// output along, each created only once its dependency succeeded; a failure
// cancelling its dependents with the reason; cancel cascading; and `dlp
// pipeline resume` after the driving `dlp` was killed, neither losing nor
// duplicating a job.
#include <signal.h>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kJobSets[] = "jobset.x-k8s.io/v1alpha2/jobsets";
constexpr char kCreateJobSet[] = "POST /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets";

// prep writes into its output folder, train copies it into its own, eval
// reads train's.
constexpr char kChain[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: chain}
spec:
  jobs:
    prep:
      replicas:
        worker:
          command: [/bin/sh, -c, 'echo payload-42 > "$DLP_OUTPUT_DIR/data.txt"']
    train:
      dependsOn: [{job: prep}]
      replicas:
        worker:
          command: [/bin/sh, -c, 'cp "$DATA/data.txt" "$DLP_OUTPUT_DIR/model.txt"']
          env: {DATA: "${jobs.prep.outputDir}"}
    eval:
      dependsOn: [{job: train, condition: succeeded}]
      replicas:
        worker:
          command: [cat, "${jobs.train.outputDir}/model.txt"]
)";

class CliKubernetesPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    UseContext("k8s", "output-claim=dlp-outputs");
    chain_ = env_.dir().WriteFile("chain.yaml", kChain);
  }
  void UseContext(const std::string& name, const std::string& claim) {
    const std::string kubeconfig = env_.dir().WriteFile("kube/config", fake_.Kubeconfig("ml"));
    std::vector<std::string> args = {"config",
                                     "set-context",
                                     name,
                                     "--backend",
                                     "kubernetes",
                                     "--field",
                                     "kubeconfig=" + kubeconfig,
                                     "--field",
                                     "namespace=ml",
                                     "--field",
                                     "flavour=jobset",
                                     "--field",
                                     "image=dlp:test"};
    if (!claim.empty()) args.insert(args.end(), {"--field", claim});
    RunResult r = env_.Dlp(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = env_.Dlp({"config", "use-context", name});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Submits without driving; returns the pipeline id.
  std::string SubmitChain() {
    RunResult r = env_.Dlp({"submit", "-q", chain_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("dlp pipeline resume"));
    return std::string(absl::StripAsciiWhitespace(r.out));
  }
  nlohmann::json Status(const std::string& pipeline) {
    RunResult r = env_.Dlp({"pipeline", "status", pipeline, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    return doc.is_discarded() ? nlohmann::json::object() : doc;
  }
  // name -> job id, given at submit to every job (created or not).
  std::map<std::string, std::string> Jobs(const std::string& pipeline) {
    std::map<std::string, std::string> out;
    const nlohmann::json status = Status(pipeline);
    for (const nlohmann::json& j : status["jobs"]) out[j["name"]] = j["job"];
    return out;
  }
  bool Created(const std::string& job) const { return fake_.FindJob(kJobSets, job).has_value(); }
  // The cluster runs the job's one worker to `code`.
  void Finish(const std::string& job, int code) {
    fake_.StartPod("ml", job, "worker", 0);
    fake_.EndPod("ml", FakeApiServer::PodName(job, "worker", 0), code);
    if (code == 0) {
      fake_.SetCondition(kJobSets, "ml", job, "Completed", "True", "AllJobsCompleted");
    } else {
      fake_.SetCondition(kJobSets, "ml", job, "Failed", "True", "FailedJobs", "a job failed");
    }
  }
  // The group file a job's pods read (its commands and environment).
  std::string GroupFile(const std::string& job) const {
    for (const nlohmann::json& map : fake_.All("/v1/configmaps")) {
      const nlohmann::json& labels = map["metadata"]["labels"];
      if (labels.value("dlp.dev/job-id", "") == job) return map["data"].value("group.json", "");
    }
    return "";
  }

  FakeApiServer fake_;
  CliEnv env_;
  std::string chain_;
};

TEST_F(CliKubernetesPipelineTest, AChainPassesAnOutputAlongCreatingEachJobWhenItsDependencyEnds) {
  const std::string id = SubmitChain();
  ASSERT_FALSE(id.empty());
  std::map<std::string, std::string> jobs = Jobs(id);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_TRUE(Created(jobs["prep"]));
  EXPECT_FALSE(Created(jobs["train"]));
  RunResult tree = env_.Dlp({"pipeline", "status", id});
  EXPECT_THAT(tree.out, HasSubstr("waiting for job " + jobs["prep"] + " (Queued)"));

  // The workload and its record carry the pipeline's labels, for kubectl.
  nlohmann::json prep = *fake_.FindJob(kJobSets, jobs["prep"]);
  EXPECT_EQ(prep["metadata"]["labels"]["dlp.dev/pipeline-id"], id);
  EXPECT_EQ(prep["metadata"]["labels"]["dlp.dev/pipeline-job"], "prep");
  const std::string manifest = prep.dump();
  EXPECT_THAT(manifest, HasSubstr(R"("claimName":"dlp-outputs")"));
  EXPECT_THAT(manifest, HasSubstr(R"({"name":"DLP_OUTPUT_DIR","value":"/dlp/output"})"));
  EXPECT_THAT(manifest, HasSubstr(R"("subPath":")" + jobs["prep"] + "\""));

  auto driver = env_.DlpInBackground({"pipeline", "resume", id});
  Finish(jobs["prep"], 0);
  ASSERT_TRUE(Eventually([&] { return Created(jobs["train"]); }));
  EXPECT_THAT(GroupFile(jobs["train"]), HasSubstr("/dlp/outputs/" + jobs["prep"]));
  EXPECT_FALSE(Created(jobs["eval"]));
  Finish(jobs["train"], 0);
  ASSERT_TRUE(Eventually([&] { return Created(jobs["eval"]); }));
  EXPECT_THAT(GroupFile(jobs["eval"]), HasSubstr("/dlp/outputs/" + jobs["train"] + "/model.txt"));
  Finish(jobs["eval"], 0);
  RunResult done = driver->Wait(absl::Seconds(60));
  EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_THAT(done.out, HasSubstr("pipeline " + id + " (chain): Succeeded"));

  nlohmann::json status = Status(id);
  EXPECT_EQ(status["state"], "Succeeded");
  RunResult list = env_.Dlp({"pipeline", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("3/3"));
  EXPECT_EQ(fake_.CountRequests(kCreateJobSet), 3);
}

TEST_F(CliKubernetesPipelineTest, AFailedDependencyCancelsItsDependentsWithTheReason) {
  auto driver = env_.DlpInBackground({"submit", "-q", "--wait", chain_});
  ASSERT_TRUE(Eventually([&] { return fake_.All(kJobSets).size() == 1; }));
  const std::string id = fake_.All(kJobSets)[0]["metadata"]["labels"]["dlp.dev/pipeline-id"];
  std::map<std::string, std::string> jobs = Jobs(id);
  Finish(jobs["prep"], 3);
  RunResult done = driver->Wait(absl::Seconds(60));
  EXPECT_EQ(done.exit_code, 1) << done.out << done.err;

  RunResult tree = env_.Dlp({"pipeline", "status", id});
  EXPECT_THAT(tree.out, HasSubstr("pipeline " + id + " (chain): Failed"));
  EXPECT_THAT(tree.out, HasSubstr("train  job " + jobs["train"] + "  Cancelled  dependency job " +
                                  jobs["prep"] + " failed"));
  EXPECT_THAT(tree.out, HasSubstr("eval  job " + jobs["eval"] + "  Cancelled  dependency job " +
                                  jobs["train"] + " was cancelled"));
  // Neither dependent ever reached the cluster.
  EXPECT_EQ(fake_.All(kJobSets).size(), 1u);
}

TEST_F(CliKubernetesPipelineTest, CancelCascadesAndNothingIsCreatedAfter) {
  const std::string id = SubmitChain();
  std::map<std::string, std::string> jobs = Jobs(id);
  fake_.StartPod("ml", jobs["prep"], "worker", 0);
  RunResult cancel = env_.Dlp({"pipeline", "cancel", id});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_FALSE(Created(jobs["prep"]));  // its workload deleted
  nlohmann::json status = Status(id);
  EXPECT_EQ(status["state"], "Cancelled");
  for (const nlohmann::json& j : status["jobs"]) EXPECT_EQ(j["state"], "Cancelled") << j.dump();
  EXPECT_EQ(env_.State(jobs["prep"]), "Cancelled");
  // A driver started later sees the cancel and creates nothing.
  RunResult resume = env_.Dlp({"pipeline", "resume", id});
  EXPECT_EQ(resume.exit_code, 5) << resume.err;
  EXPECT_EQ(fake_.CountRequests(kCreateJobSet), 1);
}

TEST_F(CliKubernetesPipelineTest, ResumeAfterTheDriverIsKilledLosesAndDuplicatesNothing) {
  auto driver = env_.DlpInBackground({"submit", "-q", "--wait", chain_});
  ASSERT_TRUE(Eventually([&] { return fake_.All(kJobSets).size() == 1; }));
  const std::string id = fake_.All(kJobSets)[0]["metadata"]["labels"]["dlp.dev/pipeline-id"];
  std::map<std::string, std::string> jobs = Jobs(id);
  driver->Signal(SIGKILL);
  driver->Wait(absl::Seconds(30));
  Finish(jobs["prep"], 0);
  // Nobody drives it now: train is ready, not created.
  RunResult tree = env_.Dlp({"pipeline", "status", id});
  EXPECT_THAT(tree.out, HasSubstr("ready: `dlp pipeline resume " + id + "` creates it"));
  EXPECT_FALSE(Created(jobs["train"]));

  // Two drivers at once, as after a resume from two machines: one train.
  auto first = env_.DlpInBackground({"pipeline", "resume", id});
  auto second = env_.DlpInBackground({"pipeline", "resume", id});
  ASSERT_TRUE(Eventually([&] { return Created(jobs["train"]); }));
  first->Signal(SIGKILL);
  first->Wait(absl::Seconds(30));
  Finish(jobs["train"], 0);
  ASSERT_TRUE(Eventually([&] { return Created(jobs["eval"]); }));
  Finish(jobs["eval"], 0);
  RunResult done = second->Wait(absl::Seconds(60));
  EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_EQ(Status(id)["state"], "Succeeded");
  EXPECT_EQ(fake_.All(kJobSets).size(), 3u);
  for (const auto& [name, job] : jobs) EXPECT_EQ(env_.State(job), "Succeeded") << name;
}

TEST_F(CliKubernetesPipelineTest, AnOutputPassedAlongNeedsAnOutputClaim) {
  UseContext("k8s-no-claim", "");
  RunResult r = env_.Dlp({"submit", chain_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("spec.jobs.train"));
  EXPECT_THAT(r.err, HasSubstr("output-claim"));
  EXPECT_TRUE(fake_.All("/v1/configmaps").empty());
}

TEST_F(CliKubernetesPipelineTest, AnUnknownPipelineIsExit3) {
  RunResult r = env_.Dlp({"pipeline", "status", "nosuchpipe"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace dlp::testing
