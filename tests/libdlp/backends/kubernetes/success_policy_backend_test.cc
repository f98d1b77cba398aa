// spec.successPolicy through the Kubernetes backend against the fake API
// server: the JobSet it creates ends with the chief, and the job is Succeeded
// while a worker pod still runs (JobSet stops it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/kubernetes/kubernetes_backend.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"
#include "support/temp_dir.h"

namespace dlp::internal::k8s {
namespace {

using ::dlp::testing::FakeApiServer;
using nlohmann::json;

constexpr char kJobSets[] = "jobset.x-k8s.io/v1alpha2/jobsets";

JobSpec ChiefAndWorkers() {
  JobSpec spec;
  spec.name = "ps";
  spec.framework = Framework::kTensorFlow;
  spec.replicas = {{"chief", 1, {"python3", "chief.py"}, {}, {}},
                   {"worker", 2, {"python3", "worker.py"}, {}, {}}};
  spec.success_policy.roles = {"chief"};
  return spec;
}

TEST(KubernetesSuccessPolicy, TheJobSetEndsWithTheChief) {
  dlp::testing::TempDir dir;
  FakeApiServer fake;
  KubernetesOptions options;
  options.kubeconfig = dir.WriteFile("kubeconfig", fake.Kubeconfig("ml"));
  options.render.image = "dlp:test";
  KubernetesBackend backend(options);

  absl::StatusOr<Job> job = backend.Submit(ChiefAndWorkers());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->spec.success_policy.roles, std::vector<std::string>{"chief"});
  std::optional<json> jobset = fake.FindJob(kJobSets, job->id);
  ASSERT_TRUE(jobset.has_value());
  EXPECT_EQ((*jobset)["spec"]["successPolicy"],
            json::parse(R"({"operator": "All", "targetReplicatedJobs": ["chief"]})"));
  std::optional<json> record = fake.FindJob("/v1/configmaps", job->id);
  ASSERT_TRUE(record.has_value());
  EXPECT_NE((*record)["data"]["group.json"].get<std::string>().find("\"successPolicy\""),
            std::string::npos);

  // The chief ends; JobSet declares success while a worker still runs.
  fake.StartPod("ml", job->id, "chief", 0);
  fake.StartPod("ml", job->id, "worker", 0);
  fake.StartPod("ml", job->id, "worker", 1);
  fake.EndPod("ml", FakeApiServer::PodName(job->id, "chief", 0), 0);
  fake.EndPod("ml", FakeApiServer::PodName(job->id, "worker", 0), 0);
  fake.SetCondition(kJobSets, "ml", job->id, "Completed", "True", "AllJobsCompleted",
                    "jobset completed successfully");
  absl::StatusOr<Job> done = backend.Get(job->id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, JobState::kSucceeded);
  EXPECT_EQ(done->exit_code, 0);
  EXPECT_EQ(done->spec.success_policy, ChiefAndWorkers().success_policy);
}

}  // namespace
}  // namespace dlp::internal::k8s
