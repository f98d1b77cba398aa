// Pipelines against the real API server: the driving `dlp` (submit --wait,
// pipeline resume) creates each job once its dependency succeeded, and
// creates are exactly-once by name: a driver killed with SIGKILL mid-run,
// then two drivers at once, neither lose nor duplicate a job, and the
// pipeline finishes. Every pod is held by KWOK's dlp-test/hold hook until
// the test lets it end, so each kill falls where the test means it to.
// Skips without the test cluster (kube_cluster.h).
#include <signal.h>

#include <map>

#include "e2e/kubernetes/kube_cluster.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kChain[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata:
  name: chain
  labels: {dlp-test/hold: "true"}
spec:
  jobs:
    prep:
      replicas:
        worker: {command: [python3, prep.py]}
    train:
      dependsOn: [{job: prep}]
      replicas:
        worker: {command: [python3, train.py], count: 2}
    eval:
      dependsOn: [{job: train, condition: succeeded}]
      replicas:
        worker: {command: [python3, eval.py]}
)";

class KubernetesPipelineTest : public ::testing::TestWithParam<std::string> {
 protected:
  KubeCluster cluster_{GetParam()};

  // The pipeline's workloads by the name of their job in the pipeline.
  std::map<std::string, std::vector<nlohmann::json>> Workloads(const std::string& pipeline) const {
    std::map<std::string, std::vector<nlohmann::json>> by_name;
    nlohmann::json list =
        cluster_.Get({cluster_.WorkloadResource(), "-l", "dlp.dev/pipeline-id=" + pipeline});
    if (list.is_null()) return by_name;
    for (const nlohmann::json& w : list["items"]) {
      by_name[w["metadata"]["labels"].value("dlp.dev/pipeline-job", "")].push_back(w);
    }
    return by_name;
  }
  bool Created(const std::string& pipeline, const std::string& name) const {
    return Workloads(pipeline).count(name) > 0;
  }
  // name -> job id, given to every job at submit (created or not).
  std::map<std::string, std::string> Jobs(const std::string& pipeline) const {
    std::map<std::string, std::string> out;
    RunResult r = cluster_.Dlp({"pipeline", "status", pipeline, "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json status = nlohmann::json::parse(r.out, nullptr, false);
    if (status.is_discarded()) return out;
    for (const nlohmann::json& j : status["jobs"]) out[j["name"]] = j["job"];
    return out;
  }
  // Once job `id` runs (its pods held), lets it end.
  void FinishWhenRunning(const std::string& id) const {
    ASSERT_TRUE(Eventually([&] { return cluster_.Status(id)["state"] == "Running"; },
                           absl::Seconds(60)))
        << cluster_.Status(id).dump();
    cluster_.Release(id);
  }
};

TEST_P(KubernetesPipelineTest, AKilledDriverThenTwoAtOnceCreateEachJobOnceAndFinish) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  const std::string chain = cluster_.dir().WriteFile("chain.yaml", kChain);
  auto driver = cluster_.DlpInBackground({"submit", "-q", "--wait", chain});
  std::string id;
  ASSERT_TRUE(Eventually(
      [&] {
        nlohmann::json list = cluster_.Get(
            {cluster_.WorkloadResource(), "-l", "dlp.dev/pipeline-job=prep"});
        if (list.is_null() || list["items"].empty()) return false;
        id = list["items"][0]["metadata"]["labels"]["dlp.dev/pipeline-id"];
        return true;
      },
      absl::Seconds(60)))
      << driver->OutputSoFar();
  std::map<std::string, std::string> jobs = Jobs(id);
  ASSERT_EQ(jobs.size(), 3u);
  const std::string prep_uid = Workloads(id)["prep"][0]["metadata"]["uid"];
  EXPECT_FALSE(Created(id, "train"));

  // Killed while prep runs; prep then ends with nobody driving.
  ASSERT_TRUE(Eventually([&] { return cluster_.Status(jobs["prep"])["state"] == "Running"; },
                         absl::Seconds(60)));
  driver->Signal(SIGKILL);
  driver->Wait(absl::Seconds(30));
  cluster_.Release(jobs["prep"]);
  ASSERT_TRUE(Eventually([&] { return cluster_.Status(jobs["prep"])["state"] == "Succeeded"; },
                         absl::Seconds(60)));
  RunResult tree = cluster_.Dlp({"pipeline", "status", id});
  EXPECT_THAT(tree.out, HasSubstr("ready: `dlp pipeline resume " + id + "` creates it"))
      << tree.out;
  EXPECT_FALSE(Created(id, "train"));

  // Two drivers at once, as after a resume from two machines; one is killed
  // once train exists, the other drives the pipeline to its end.
  auto first = cluster_.DlpInBackground({"pipeline", "resume", id});
  auto second = cluster_.DlpInBackground({"pipeline", "resume", id});
  ASSERT_TRUE(Eventually([&] { return Created(id, "train"); }, absl::Seconds(60)));
  first->Signal(SIGKILL);
  first->Wait(absl::Seconds(30));
  FinishWhenRunning(jobs["train"]);
  ASSERT_TRUE(Eventually([&] { return Created(id, "eval"); }, absl::Seconds(60)))
      << second->OutputSoFar();
  FinishWhenRunning(jobs["eval"]);
  RunResult done = second->Wait(absl::Seconds(120));
  EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_THAT(done.out, HasSubstr("pipeline " + id + " (chain): Succeeded")) << done.out;

  // One workload and one record per job, prep's the one made before the kill.
  std::map<std::string, std::vector<nlohmann::json>> workloads = Workloads(id);
  ASSERT_EQ(workloads.size(), 3u);
  for (const auto& [name, made] : workloads) EXPECT_EQ(made.size(), 1u) << name;
  EXPECT_EQ(workloads["prep"][0]["metadata"]["uid"], prep_uid);
  for (const auto& [name, job] : jobs) {
    nlohmann::json records =
        cluster_.Get({"configmaps", "-l", "dlp.dev/job-id=" + job + ",dlp.dev/pipeline-job"});
    EXPECT_EQ(records["items"].size(), 1u) << name << ": " << records.dump();
    EXPECT_EQ(cluster_.Status(job)["state"], "Succeeded") << name;
    EXPECT_EQ(workloads[name][0]["metadata"]["labels"]["dlp.dev/job-id"], job) << name;
  }
  nlohmann::json train_pods = cluster_.Get({"pods", "-l", "dlp.dev/job-id=" + jobs["train"]});
  EXPECT_EQ(train_pods["items"].size(), 2u) << "one gang of two, never a second";
}

INSTANTIATE_TEST_SUITE_P(Flavours, KubernetesPipelineTest, ::testing::Values("jobset", "job"));

}  // namespace
}  // namespace dlp::testing
