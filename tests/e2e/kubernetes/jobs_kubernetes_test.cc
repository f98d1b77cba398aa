// Every verb of the kubernetes backend against the real control plane, for
// the jobset and job flavours: submit, status following the real JobSet/Job
// conditions, list by label, describe with the controllers' events, wait
// through real watches, exit codes from the pods (KWOK's exit-code hook),
// cancel. Skips without the test cluster (kube_cluster.h).
#include "e2e/kubernetes/kube_cluster.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class KubernetesJobsTest : public ::testing::TestWithParam<std::string> {
 protected:
  KubeCluster cluster_{GetParam()};
};

TEST_P(KubernetesJobsTest, SubmitWaitStatusListDescribe) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  const std::string a = cluster_.Submit(cluster_.WriteJob("train-a", 2, {{"team", "a"}}), {"--wait"});
  ASSERT_FALSE(a.empty());
  nlohmann::json job = cluster_.Status(a);
  ASSERT_FALSE(job.is_null());
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["exitCode"], 0) << job.dump();
  ASSERT_EQ(job["replicas"].size(), 2u) << job.dump();
  for (const nlohmann::json& replica : job["replicas"]) {
    EXPECT_EQ(replica["state"], "Succeeded") << replica.dump();
    EXPECT_THAT(replica["host"].get<std::string>(), HasSubstr("kwok-node-")) << replica.dump();
  }
  // The real workload says so too, and the job's labels reached its pods.
  nlohmann::json pods = cluster_.Get({"pods", "-l", "dlp.dev/job-id=" + a});
  ASSERT_EQ(pods["items"].size(), 2u);
  for (const nlohmann::json& pod : pods["items"]) {
    EXPECT_EQ(pod["metadata"]["labels"]["team"], "a");
    EXPECT_EQ(pod["status"]["phase"], "Succeeded");
  }

  const std::string b = cluster_.Submit(cluster_.WriteJob("train-b", 1, {{"team", "b"}}));
  RunResult list = cluster_.Dlp({"list", "--label", "team=a", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(a));
  EXPECT_THAT(list.out, Not(HasSubstr(b)));
  RunResult all = cluster_.Dlp({"list", "-o", "json"});
  EXPECT_THAT(all.out, HasSubstr(a));
  EXPECT_THAT(all.out, HasSubstr(b));
  // The list reads the workloads as status does (a batch/v1 list's items
  // carry no kind of their own).
  const nlohmann::json listed = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_TRUE(listed.is_object() && listed["jobs"].size() == 1u) << list.out;
  EXPECT_EQ(listed["jobs"][0]["state"], "Succeeded") << list.out;

  // The scheduler's events on the pods, seen through the API.
  RunResult describe = cluster_.Dlp({"describe", a});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("Scheduled")) << describe.out;
  EXPECT_THAT(describe.out, HasSubstr("Successfully assigned " + cluster_.ns() + "/"))
      << describe.out;

  // dlp wait follows b through a watch until the controllers end it.
  RunResult wait = cluster_.Dlp({"wait", b});
  EXPECT_EQ(wait.exit_code, 0) << wait.out << wait.err;
  EXPECT_EQ(cluster_.Status(b)["state"], "Succeeded");
}

TEST_P(KubernetesJobsTest, ThePodsExitCodeIsTheJobs) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  for (int code : {0, 1, 5}) {
    SCOPED_TRACE(code);
    const std::string name = "exits-" + std::to_string(code);
    const std::string file = cluster_.WriteJob(name, 2, {{"dlp-test/exit", std::to_string(code)}});
    RunResult r = cluster_.Dlp({"submit", "-q", "--wait", file});
    EXPECT_EQ(r.exit_code, code == 0 ? 0 : 1) << r.out << r.err;
    const std::string id(absl::StripAsciiWhitespace(r.out.substr(0, r.out.find('\n'))));
    nlohmann::json job = cluster_.Status(id);
    ASSERT_FALSE(job.is_null()) << r.out;
    EXPECT_EQ(job["state"], code == 0 ? "Succeeded" : "Failed") << job.dump();
    EXPECT_EQ(job["exitCode"], code) << job.dump();
    if (code != 0) {
      EXPECT_THAT(job["reason"].get<std::string>(),
                  HasSubstr("exited with code " + std::to_string(code)))
          << job.dump();
      RunResult wait = cluster_.Dlp({"wait", id});
      EXPECT_EQ(wait.exit_code, 1) << wait.err;
    }
  }
}

TEST_P(KubernetesJobsTest, CancelDeletesTheWorkloadAndReadsBackCancelled) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  // No quota: Kueue keeps it suspended, so it is still there to cancel.
  cluster_.UseQueue(0, 0);
  const std::string id = cluster_.Submit(cluster_.WriteJob("to-cancel", 2));
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(cluster_.Status(id)["state"], "Queued");
  RunResult cancel = cluster_.Dlp({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  EXPECT_EQ(cluster_.Status(id)["state"], "Cancelled");
  EXPECT_TRUE(Eventually(
      [&] {
        nlohmann::json left = cluster_.Get({cluster_.WorkloadResource(), "-l", "dlp.dev/job-id=" + id});
        return !left.is_null() && left["items"].empty();
      },
      absl::Seconds(60)));
  RunResult wait = cluster_.Dlp({"wait", id});
  EXPECT_EQ(wait.exit_code, 5) << wait.out << wait.err;  // cancelled
}

INSTANTIATE_TEST_SUITE_P(Flavours, KubernetesJobsTest, ::testing::Values("jobset", "job"));

}  // namespace
}  // namespace dlp::testing
