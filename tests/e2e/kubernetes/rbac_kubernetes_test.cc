// The cluster's real RBAC: a ServiceAccount token whose namespaced Role
// lacks `create` on the workload gets exit 4 naming the verb and the
// resource, and the same token has no access to another namespace.
// Skips without the test cluster (kube_cluster.h).
#include "absl/strings/strip.h"
#include "e2e/kubernetes/kube_cluster.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class KubernetesRbacTest : public ::testing::TestWithParam<std::string> {
 protected:
  KubeCluster cluster_{GetParam()};
};

TEST_P(KubernetesRbacTest, ARoleWithoutCreateOnTheWorkloadGetsExitFour) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  const std::string group = GetParam() == "job" ? "batch" : "jobset.x-k8s.io";
  const std::string resource = GetParam() == "job" ? "jobs" : "jobsets";
  cluster_.Apply(absl::StrCat(R"(
apiVersion: v1
kind: ServiceAccount
metadata: {name: limited}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: limited}
rules:
- apiGroups: [""]
  resources: [configmaps, services]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [pods, events]
  verbs: [get, list, watch]
- apiGroups: [")", group, R"("]
  resources: [)", resource, R"(]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: limited}
subjects: [{kind: ServiceAccount, name: limited}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: limited}
)"));
  RunResult token = cluster_.Kubectl({"create", "token", "limited", "-n", cluster_.ns()});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  // The admin kubeconfig's cluster, with the ServiceAccount's token as user.
  nlohmann::json admin = nlohmann::json::parse(
      cluster_.Kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out);
  nlohmann::json kubeconfig = {
      {"apiVersion", "v1"},
      {"kind", "Config"},
      {"clusters", admin["clusters"]},
      {"users", {{{"name", "limited"}, {"user", {{"token", absl::StripAsciiWhitespace(token.out)}}}}}},
      {"contexts",
       {{{"name", "limited"},
         {"context", {{"cluster", admin["clusters"][0]["name"]}, {"user", "limited"}}}}}},
      {"current-context", "limited"}};
  const std::string limited = cluster_.dir().WriteFile("limited.kubeconfig", kubeconfig.dump());
  cluster_.WriteConfig("", limited);

  RunResult submit = cluster_.Dlp({"submit", cluster_.WriteJob("denied", 1)});
  EXPECT_EQ(submit.exit_code, 4) << submit.out << submit.err;
  EXPECT_THAT(submit.err, HasSubstr("may not create " + resource + "." + group + " in namespace " +
                                    cluster_.ns()));
  // What the Role grants still works; the objects made before the refusal are gone.
  RunResult list = cluster_.Dlp({"list", "-o", "json"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  nlohmann::json left = cluster_.Get({"configmaps,services", "-l", "app.kubernetes.io/managed-by=dlp"});
  EXPECT_TRUE(left["items"].empty()) << left.dump();
  // Another namespace is out of reach.
  cluster_.WriteConfig("", limited, "default");
  RunResult other = cluster_.Dlp({"list", "-o", "json"});
  EXPECT_EQ(other.exit_code, 4) << other.out << other.err;
  EXPECT_THAT(other.err, HasSubstr("may not list configmaps in namespace default"));
}

INSTANTIATE_TEST_SUITE_P(Flavours, KubernetesRbacTest, ::testing::Values("jobset", "job"));

}  // namespace
}  // namespace dlp::testing
