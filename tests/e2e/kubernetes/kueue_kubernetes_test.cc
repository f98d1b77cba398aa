// The kubernetes backend with a Kueue queue, against the real Kueue
// controller manager: a gang admitted as one Workload and run to the end,
// and a gang above its ClusterQueue's quota that stays Queued with Kueue's
// own reason, and a running job that Kueue preempts for one of a higher
// WorkloadPriorityClass, seen as preempted. Skips without the test cluster
// (kube_cluster.h).
#include "e2e/kubernetes/kube_cluster.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class KubernetesKueueTest : public ::testing::TestWithParam<std::string> {
 protected:
  KubeCluster cluster_{GetParam()};

  // The Kueue Workload of job `id`'s workload (found as dlp finds it).
  nlohmann::json KueueWorkload(const std::string& id) const {
    nlohmann::json workloads = cluster_.Get({cluster_.WorkloadResource(), "-l", "dlp.dev/job-id=" + id});
    if (workloads.is_null() || workloads["items"].empty()) return nullptr;
    const std::string uid = workloads["items"][0]["metadata"]["uid"];
    nlohmann::json kueue = cluster_.Get({"workloads.kueue.x-k8s.io", "-l", "kueue.x-k8s.io/job-uid=" + uid});
    if (kueue.is_null() || kueue["items"].empty()) return nullptr;
    return kueue["items"][0];
  }
  static nlohmann::json Condition(const nlohmann::json& object, const std::string& type) {
    for (const nlohmann::json& c : object["status"].value("conditions", nlohmann::json::array())) {
      if (c["type"] == type) return c;
    }
    return nullptr;
  }
};

TEST_P(KubernetesKueueTest, AGangIsAdmittedAsOneWorkloadAndRuns) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  cluster_.UseQueue(8, 4);
  const std::string file =
      cluster_.WriteJob("gang", 2, {}, {{"cpu", "1"}, {"gpu", "2"}, {"memory", "1Gi"}});
  const std::string id = cluster_.Submit(file, {"--wait"});
  ASSERT_FALSE(id.empty());
  nlohmann::json job = cluster_.Status(id);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["queue"], "lq") << job.dump();
  // One Workload for the whole gang, admitted with both pods' GPUs.
  nlohmann::json workload = KueueWorkload(id);
  ASSERT_FALSE(workload.is_null());
  nlohmann::json admitted = Condition(workload, "Admitted");
  ASSERT_FALSE(admitted.is_null()) << workload.dump();
  EXPECT_EQ(admitted["status"], "True") << workload.dump();
  const nlohmann::json& pod_sets = workload["spec"]["podSets"];
  ASSERT_EQ(pod_sets.size(), 1u) << workload.dump();
  EXPECT_EQ(pod_sets[0]["count"], 2);
  const nlohmann::json& usage = workload["status"]["admission"]["podSetAssignments"][0];
  EXPECT_EQ(usage["resourceUsage"]["nvidia.com/gpu"], "4") << workload.dump();
  // Kueue's and the controllers' events are the job's events.
  RunResult describe = cluster_.Dlp({"describe", id});
  EXPECT_THAT(describe.out, HasSubstr("Admitted")) << describe.out;
}

TEST_P(KubernetesKueueTest, AGangAboveTheQuotaStaysQueuedWithKueuesReason) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  cluster_.UseQueue(8, 4);
  const std::string id =
      cluster_.Submit(cluster_.WriteJob("too-big", 2, {}, {{"cpu", "1"}, {"gpu", "4"}}));
  ASSERT_FALSE(id.empty());
  std::string kueue_message;
  ASSERT_TRUE(Eventually(
      [&] {
        nlohmann::json workload = KueueWorkload(id);
        if (workload.is_null()) return false;
        nlohmann::json reserved = Condition(workload, "QuotaReserved");
        if (reserved.is_null() || reserved["status"] != "False") return false;
        kueue_message = reserved["message"];
        return !kueue_message.empty();
      },
      absl::Seconds(60)))
      << "Kueue never said why it did not admit the gang";
  EXPECT_THAT(kueue_message, HasSubstr("nvidia.com/gpu"));
  nlohmann::json job = cluster_.Status(id);
  EXPECT_EQ(job["state"], "Queued") << job.dump();
  EXPECT_THAT(job["reason"].get<std::string>(), HasSubstr(kueue_message)) << job.dump();
  // Suspended by Kueue: no pod was ever made.
  nlohmann::json pods = cluster_.Get({"pods", "-l", "dlp.dev/job-id=" + id});
  EXPECT_TRUE(pods["items"].empty()) << pods.dump();
  RunResult wait = cluster_.Dlp({"wait", id, "--timeout", "3s"});
  EXPECT_EQ(wait.exit_code, 4) << wait.out << wait.err;  // the timeout
}

TEST_P(KubernetesKueueTest, APreemptionByKueueIsSeenAsSuch) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  // dlp's priority classes as Kueue's (docs/kubernetes.md, "Set-up");
  // cluster-wide and the same for every test, so they stay.
  cluster_.Apply(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: dlp-low}
value: -100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: dlp-high}
value: 100
)");
  cluster_.UseQueue(2, 0, "LowerPriority");
  // The low gang takes the whole quota and runs until the test lets it end.
  const std::string low = cluster_.Submit(cluster_.WriteJob(
      "low", 2, {{"dlp-test/hold", "true"}}, {{"cpu", "1"}}, {{"priority", "low"}}));
  ASSERT_FALSE(low.empty());
  ASSERT_TRUE(Eventually([&] { return cluster_.Status(low)["state"] == "Running"; },
                         absl::Seconds(60)))
      << cluster_.Status(low).dump();

  const std::string high = cluster_.Submit(
      cluster_.WriteJob("high", 2, {}, {{"cpu", "1"}}, {{"priority", "high"}}));
  ASSERT_FALSE(high.empty());
  // Kueue evicts the low gang for the high one: back in the queue, saying why.
  nlohmann::json preempted;
  ASSERT_TRUE(Eventually(
      [&] {
        preempted = cluster_.Status(low);
        return preempted["state"] == "Queued" && preempted["preemptions"] == 1 &&
               preempted.value("replicas", nlohmann::json::array()).empty();  // pods gone
      },
      absl::Seconds(60)))
      << preempted.dump();
  const std::string reason = preempted["reason"];
  EXPECT_THAT(reason, HasSubstr("preempted by Kueue (InClusterQueue): Preempted to accommodate"));
  const std::string high_uid =
      cluster_.Get({cluster_.WorkloadResource(), "-l", "dlp.dev/job-id=" + high})["items"][0]
                  ["metadata"]["uid"];
  EXPECT_THAT(reason, HasSubstr("JobUID: " + high_uid)) << "names the preemptor";

  // The high gang runs to its end; then the low one is admitted again and runs.
  RunResult waited = cluster_.Dlp({"wait", high});
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  EXPECT_EQ(cluster_.Status(high)["preemptions"], 0);
  ASSERT_TRUE(Eventually([&] { return cluster_.Status(low)["state"] == "Running"; },
                         absl::Seconds(60)))
      << cluster_.Status(low).dump();
  cluster_.Release(low);
  waited = cluster_.Dlp({"wait", low});
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  nlohmann::json job = cluster_.Status(low);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["preemptions"], 1) << job.dump();
  RunResult describe = cluster_.Dlp({"describe", low});
  EXPECT_THAT(describe.out, HasSubstr("Preempted")) << describe.out;
}

INSTANTIATE_TEST_SUITE_P(Flavours, KubernetesKueueTest, ::testing::Values("jobset", "job"));

}  // namespace
}  // namespace dlp::testing
