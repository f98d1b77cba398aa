// `dlp wait` through a kube-apiserver restart: the job is still running (its
// pods held by KWOK's dlp-test/hold hook) while its wait watches; the test
// restarts the API server (scripts/kubernetes/restart.sh: SIGTERM, as an
// upgrade does, or SIGKILL, as a crash), then lets the pods end with code 3,
// and the same wait reports that end. The restart breaks every client of the
// cluster, so ctest runs these alone (RUN_SERIAL, tests/CMakeLists.txt).
// Skips without the test cluster (kube_cluster.h).
#include <tuple>

#include "e2e/kubernetes/kube_cluster.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// (flavour, how the API server goes down: "" SIGTERM, "--kill" SIGKILL)
class KubernetesApiServerRestartTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  KubeCluster cluster_{std::get<0>(GetParam())};

  // The API server's audit log (start.sh) holds a watch on job `id`'s workload.
  bool Watched(const std::string& id) const {
    const std::string log = ReadFileOrEmpty(cluster_.EnvValue("DLP_K8S_AUDIT_LOG"));
    const std::string resource = cluster_.flavour() == "job" ? "/jobs?" : "/jobsets?";
    const std::string path = absl::StrCat("/namespaces/", cluster_.ns(), resource);
    const std::string selector = absl::StrCat("dlp.dev%2Fjob-id%3D", id);  // in labelSelector
    for (size_t at = log.find(path); at != std::string::npos; at = log.find(path, at + 1)) {
      const size_t end = log.find('"', at);
      if (log.substr(at, end - at).find(selector) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_P(KubernetesApiServerRestartTest, WaitReportsTheJobsEndThroughTheRestart) {
  DLP_SKIP_WITHOUT_KUBERNETES(cluster_);
  const std::string restart = cluster_.EnvValue("DLP_K8S_RESTART");
  if (restart.empty() || cluster_.EnvValue("DLP_K8S_AUDIT_LOG").empty()) {
    GTEST_SKIP() << "the test cluster was started by a start.sh without restart.sh and the "
                    "audit log; start it again";
  }
  const std::string id = cluster_.Submit(
      cluster_.WriteJob("held", 2, {{"dlp-test/hold", "true"}, {"dlp-test/exit", "3"}}));
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(Eventually(
      [&] {
        nlohmann::json job = cluster_.Status(id);
        return !job.is_null() && job["state"] == "Running";
      },
      absl::Seconds(60)))
      << cluster_.Status(id).dump();

  auto wait = cluster_.DlpInBackground({"wait", id});
  ASSERT_TRUE(Eventually([&] { return Watched(id); }, absl::Seconds(60)))
      << "the wait never watched: " << wait->OutputSoFar();
  RunOptions options;
  options.env = {{"DLP_K8S_DIR", cluster_.EnvValue("DLP_K8S_DIR")}};
  options.timeout = absl::Seconds(200);
  std::vector<std::string> argv = {restart};
  if (!std::get<1>(GetParam()).empty()) argv.push_back(std::get<1>(GetParam()));
  argv.push_back("kube-apiserver");
  RunResult restarted = ::dlp::testing::Run(argv, options);
  ASSERT_EQ(restarted.exit_code, 0) << restarted.out << restarted.err;

  // The job ends only now, after the restart, and the wait sees it.
  cluster_.Release(id);
  RunResult waited = wait->Wait(absl::Seconds(120));
  EXPECT_EQ(waited.exit_code, 1) << waited.out << waited.err;
  EXPECT_THAT(waited.out, HasSubstr("job " + id + " Failed")) << waited.err;
  EXPECT_THAT(waited.err, Not(HasSubstr("cannot reach"))) << waited.err;
  nlohmann::json job = cluster_.Status(id);
  EXPECT_EQ(job["state"], "Failed") << job.dump();
  EXPECT_EQ(job["exitCode"], 3) << job.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Flavours, KubernetesApiServerRestartTest,
    ::testing::Values(std::make_tuple("jobset", ""), std::make_tuple("job", "--kill")),
    [](const auto& info) {
      return std::get<0>(info.param) + (std::get<1>(info.param).empty() ? "_Term" : "_Kill");
    });

}  // namespace
}  // namespace dlp::testing
