// spec.successPolicy on Kubernetes (docs/kubernetes.md, "In the pod"): the
// group file carries it to rank 0 in every flavour; JobSet gets its own
// successPolicy, Volcano its task policy for one role.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/kubernetes/manifests.h"
#include "contract/group.h"

namespace dlp::internal::k8s {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::json;

JobSpec ParameterServers(std::vector<std::string> success_roles) {
  JobSpec spec;
  spec.name = "ps";
  spec.framework = Framework::kTensorFlow;
  spec.image = "registry.example.com/ml/tf:1.0";
  spec.workdir = "/workspace";
  spec.replicas = {{"chief", 1, {"python3", "chief.py"}, {}, {}},
                   {"ps", 2, {"python3", "ps.py"}, {}, {}},
                   {"worker", 3, {"python3", "worker.py"}, {}, {}}};
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 2, 0};
  spec.success_policy.roles = std::move(success_roles);
  return spec;
}

std::vector<Json> Render(const JobSpec& spec, const std::string& flavour) {
  RenderOptions options;
  options.flavour = flavour;
  options.name_space = "ml";
  options.job_id = "k7f3";
  auto objects = RenderManifests(spec, options);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *objects : std::vector<Json>{};
}

TEST(SuccessPolicyManifests, TheGroupFileCarriesItToRankZero) {
  for (const char* flavour : {"jobset", "volcano"}) {
    SCOPED_TRACE(flavour);
    const Json map = Render(ParameterServers({"chief"}), flavour)[0];
    auto group =
        contract::ParseGroupJson(map["data"]["group.json"].get<std::string>(), "configmap");
    ASSERT_TRUE(group.ok()) << group.status();
    EXPECT_THAT(group->success_roles, ElementsAre("chief"));
  }
}

TEST(SuccessPolicyManifests, JobSetCompletesWhenAllNamedJobsHave) {
  const Json js = Render(ParameterServers({"chief", "ps"}), "jobset")[2];
  EXPECT_EQ(js["spec"]["successPolicy"],
            Json::parse(R"({"operator": "All", "targetReplicatedJobs": ["chief", "ps"]})"));
  EXPECT_FALSE(Render(ParameterServers({}), "jobset")[2]["spec"].contains("successPolicy"));
}

TEST(SuccessPolicyManifests, VolcanoCompletesOnItsOneRolesTask) {
  const Json vj = Render(ParameterServers({"chief"}), "volcano")[2];
  const Json& tasks = vj["spec"]["tasks"];
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0]["name"], "chief");
  EXPECT_EQ(tasks[0]["policies"],
            Json::parse(R"([{"event": "TaskCompleted", "action": "CompleteJob"}])"));
  EXPECT_FALSE(tasks[1].contains("policies"));
  EXPECT_FALSE(tasks[2].contains("policies"));
  // Two roles: TaskCompleted would end the job on either; rank 0 alone decides.
  const Json two = Render(ParameterServers({"chief", "ps"}), "volcano")[2];
  for (const Json& task : two["spec"]["tasks"]) {
    EXPECT_FALSE(task.contains("policies")) << task["name"];
  }
}

}  // namespace
}  // namespace dlp::internal::k8s
