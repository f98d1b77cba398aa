// A pod's rank from its role, its completion index and the host pattern the
// manifests set (launch/kubernetes_pod.h), and the cluster its ranks meet in.
#include "launch/kubernetes_pod.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "launch/rank_environment.h"
#include "launch/rank_layout.h"

namespace dlp::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

contract::Group ChiefPsWorkers() {
  contract::Group group;
  group.framework = contract::Framework::kTensorFlow;
  group.roles = {{"chief", 1, {"c"}, {}, 0}, {"ps", 2, {"p"}, {}, 0}, {"worker", 3, {"w"}, {}, 0}};
  return group;
}

RankLayout Layout(const contract::Group& group) {
  auto layout = LayOutRanks(group, {}, {}, /*gpus_given=*/false);
  EXPECT_TRUE(layout.ok()) << layout.status();
  return layout.ok() ? *layout : RankLayout();
}

std::map<std::string, std::string> Pod(const std::string& role, const std::string& index) {
  return {{"DLP_POD_ROLE", role},
          {"JOB_COMPLETION_INDEX", index},
          {"DLP_POD_HOST_PATTERN", "t-{role}-0-{index}.t"}};
}

TEST(KubernetesPod, RankIsTheRolesOffsetPlusTheCompletionIndex) {
  auto task = ReadKubernetesTask(Pod("worker", "2"), Layout(ChiefPsWorkers()), 0);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->rank, 5);  // chief 0, ps 1-2, worker 3-5
  EXPECT_EQ(task->world, 6);
  EXPECT_EQ(task->host, "t-worker-0-2.t");
  EXPECT_THAT(task->nodes, ElementsAre("t-chief-0-0.t"));
  EXPECT_THAT(task->rank_hosts, ElementsAre("t-chief-0-0.t", "t-ps-0-0.t", "t-ps-0-1.t",
                                            "t-worker-0-0.t", "t-worker-0-1.t", "t-worker-0-2.t"));
  EXPECT_EQ(task->store_port, kDefaultPodStorePort);
  EXPECT_EQ(task->local_rank, 0);
  EXPECT_EQ(task->local_world, 1);
  EXPECT_EQ(task->node_rank, 5);
  EXPECT_EQ(task->num_nodes, 6);
  EXPECT_EQ(task->first_round, 0);

  auto chief = ReadKubernetesTask(Pod("chief", "0"), Layout(ChiefPsWorkers()), 31000);
  ASSERT_TRUE(chief.ok());
  EXPECT_EQ(chief->rank, 0);
  EXPECT_EQ(chief->store_port, 31000);
}

TEST(KubernetesPod, RanksFollowTheLaunchersRoleOrderWhateverTheFileSays) {
  contract::Group group;
  group.roles = {{"worker", 2, {"w"}, {}, 0}, {"chief", 1, {"c"}, {}, 0}};
  auto chief = ReadKubernetesTask(Pod("chief", "0"), Layout(group), 0);
  ASSERT_TRUE(chief.ok()) << chief.status();
  EXPECT_EQ(chief->rank, 0);
  EXPECT_THAT(chief->nodes, ElementsAre("t-chief-0-0.t"));
  EXPECT_EQ(ReadKubernetesTask(Pod("worker", "1"), Layout(group), 0)->rank, 2);
}

TEST(KubernetesPod, VolcanosTaskIndexAndJobSetsRestartCount) {
  std::map<std::string, std::string> env = Pod("ps", "");
  env["VC_TASK_INDEX"] = "1";
  env["DLP_RESTART_COUNT"] = "2";
  env["DLP_JOB_ID"] = "k7";
  auto task = ReadKubernetesTask(env, Layout(ChiefPsWorkers()), 0);
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->rank, 2);
  EXPECT_EQ(task->first_round, 2);
  EXPECT_EQ(task->job_id, "k7");
  env["DLP_RESTART_COUNT"] = "";  // the label of a pod JobSet has not restarted
  EXPECT_EQ(ReadKubernetesTask(env, Layout(ChiefPsWorkers()), 0)->first_round, 0);
}

TEST(KubernetesPod, WhatDoesNotFitTheGroupIsNamed) {
  auto missing = ReadKubernetesTask({{"DLP_POD_HOST_PATTERN", "h"}}, Layout(ChiefPsWorkers()), 0);
  EXPECT_THAT(missing.status().message(), HasSubstr("DLP_POD_ROLE is not set"));
  EXPECT_THAT(
      ReadKubernetesTask(Pod("evaluator", "0"), Layout(ChiefPsWorkers()), 0).status().message(),
      HasSubstr("DLP_POD_ROLE=evaluator: the group file has no such role"));
  EXPECT_THAT(ReadKubernetesTask(Pod("ps", "2"), Layout(ChiefPsWorkers()), 0).status().message(),
              HasSubstr("JOB_COMPLETION_INDEX=2: role ps has 2 replicas"));
  EXPECT_THAT(ReadKubernetesTask(Pod("ps", "x"), Layout(ChiefPsWorkers()), 0).status().message(),
              HasSubstr("no replica index"));
  std::map<std::string, std::string> no_pattern = Pod("ps", "0");
  no_pattern.erase("DLP_POD_HOST_PATTERN");
  EXPECT_THAT(ReadKubernetesTask(no_pattern, Layout(ChiefPsWorkers()), 0).status().message(),
              HasSubstr("DLP_POD_HOST_PATTERN is not set"));
  EXPECT_FALSE(InKubernetesPod({}));
  EXPECT_TRUE(InKubernetesPod(Pod("ps", "0")));
}

TEST(KubernetesPod, HostPatterns) {
  EXPECT_EQ(PodHost("j-{role}-{index}.j", "worker", 12), "j-worker-12.j");
  EXPECT_EQ(PodHost("j-{index}.j", "worker", 3), "j-3.j");
  EXPECT_EQ(PodHost("127.0.0.1", "worker", 3), "127.0.0.1");
}

// The variables a pod's rank gets are the launcher's, from the same layout:
// torchrun's, MASTER_ADDR = rank 0's pod, TF_CONFIG naming every pod.
TEST(KubernetesPod, TheRankEnvironmentNamesEveryPod) {
  const contract::Group group = ChiefPsWorkers();
  auto layout = LayOutRanks(group, {}, {}, /*gpus_given=*/false);
  ASSERT_TRUE(layout.ok()) << layout.status();
  auto task = ReadKubernetesTask(Pod("worker", "1"), *layout, 0);
  ASSERT_TRUE(task.ok()) << task.status();
  PlaceTask(*task, &*layout);
  const ClusterInfo cluster = TaskCluster(*task, group.framework, 0);
  auto env = RankEnvironment(*layout, layout->ranks[task->rank], cluster);
  EXPECT_EQ(env["RANK"], "4");
  EXPECT_EQ(env["WORLD_SIZE"], "6");
  EXPECT_EQ(env["LOCAL_RANK"], "0");
  EXPECT_EQ(env["MASTER_ADDR"], "t-chief-0-0.t");
  EXPECT_EQ(env["MASTER_PORT"], "29401");
  EXPECT_EQ(env["DLP_STORE_ADDR"], "t-chief-0-0.t:29400");
  EXPECT_EQ(env["DLP_ROLE"], "worker");
  EXPECT_EQ(env["DLP_REPLICA"], "worker-1");
  EXPECT_EQ(env["DLP_HOST_ID"], "t-worker-0-1.t");
  EXPECT_EQ(env["TF_CONFIG"],
            R"({"cluster":{"chief":["t-chief-0-0.t:29402"],"ps":["t-ps-0-0.t:29403",)"
            R"("t-ps-0-1.t:29404"],"worker":["t-worker-0-0.t:29405","t-worker-0-1.t:29406",)"
            R"("t-worker-0-2.t:29407"]},"task":{"index":1,"type":"worker"}})");
}

TEST(KubernetesPod, WaitingForAPodNameEndsWithItsName) {
  EXPECT_TRUE(WaitForPodHost("localhost", absl::Seconds(5)).ok());
  // ".invalid" never resolves (RFC 2606).
  absl::Status missing = WaitForPodHost("rank0.invalid", absl::Milliseconds(100));
  EXPECT_EQ(missing.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(missing.message(), HasSubstr("rank 0's pod rank0.invalid did not resolve"));
}

}  // namespace
}  // namespace dlp::launch
