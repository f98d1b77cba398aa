// Keeps the fake API server honest: the real kubectl, a client written
// against real API servers, lists jobsets and pods from it and follows a
// pod's log as it is written. Skipped where kubectl is not installed.
#include <unistd.h>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kKubectl[] = "/usr/bin/kubectl";

class KubectlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kKubectl, X_OK) != 0) GTEST_SKIP() << kKubectl << " is not installed";
  }
  RunOptions Options() const {
    RunOptions options;
    // kubectl caches discovery under $HOME/.kube; no kubeconfig but --server.
    options.env = {{"HOME", home_.path()}, {"KUBECONFIG", home_.Join("none")}};
    options.timeout = absl::Seconds(60);
    return options;
  }
  std::vector<std::string> Kubectl(std::vector<std::string> args) const {
    args.insert(args.begin(), {kKubectl, "--server", fake_.url(), "--namespace", "ml"});
    return args;
  }

  TempDir home_;
  FakeApiServer fake_;
};

TEST_F(KubectlTest, GetsJobSetsAndPodsAsJson) {
  fake_.Put(
      "jobset.x-k8s.io/v1alpha2/jobsets", "ml",
      {{"metadata", {{"name", "train-abcde"}, {"labels", {{"dlp.dev/job-id", "train-abcde"}}}}},
       {"spec", {{"replicatedJobs", json::array()}}}});
  fake_.StartPod("ml", "train-abcde", "worker", 0);
  RunResult r = dlp::testing::Run(Kubectl({"get", "jobsets,pods", "-o", "json"}), Options());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json list = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(list.is_object()) << r.out;
  ASSERT_EQ(list["items"].size(), 2u) << r.out;
  EXPECT_EQ(list["items"][0]["kind"], "JobSet");
  EXPECT_EQ(list["items"][0]["apiVersion"], "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(list["items"][1]["kind"], "Pod");
  EXPECT_EQ(list["items"][1]["status"]["phase"], "Running");

  RunResult selected = dlp::testing::Run(
      Kubectl({"get", "pods", "-l", "dlp.dev/job-id=other", "-o", "json"}), Options());
  ASSERT_EQ(selected.exit_code, 0) << selected.err;
  EXPECT_EQ(json::parse(selected.out)["items"].size(), 0u);

  RunResult missing = dlp::testing::Run(Kubectl({"get", "jobset", "nope"}), Options());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr("jobsets.jobset.x-k8s.io \"nope\" not found"))
      << absl::StrJoin(fake_.Requests(), "\n");
}

TEST_F(KubectlTest, FollowsAPodsLogUntilItEnds) {
  fake_.StartPod("ml", "train-abcde", "worker", 0);
  const std::string pod = FakeApiServer::PodName("train-abcde", "worker", 0);
  fake_.AppendLog("ml", pod, "before the follow");
  Background follow(Kubectl({"logs", "-f", pod}), Options());
  ASSERT_TRUE(Eventually(
      [&] { return follow.OutputSoFar().find("before the follow") != std::string::npos; },
      absl::Seconds(10)))
      << follow.OutputSoFar() << absl::StrJoin(fake_.Requests(), "\n");
  fake_.AppendLog("ml", pod, "while followed");
  ASSERT_TRUE(
      Eventually([&] { return follow.OutputSoFar().find("while followed") != std::string::npos; }));
  fake_.EndPod("ml", pod, 0);
  RunResult r = follow.Wait(absl::Seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "before the follow\nwhile followed\n");
}

TEST_F(KubectlTest, ForbiddenIsReportedAsKubectlReportsAnRbacDenial) {
  fake_.Forbid("list", "pods");
  RunResult r = dlp::testing::Run(Kubectl({"get", "pods"}), Options());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err,
              HasSubstr("cannot list resource \"pods\" in API group \"\" in the namespace \"ml\""));
}

}  // namespace
}  // namespace dlp::testing
