// The real dlp CLI on a `kubernetes` context against the in-process fake API
// server, which the test drives as the cluster: a job that runs and succeeds,
// a failing pod, cancel, a watch dropped mid-job, an RBAC denial, and a
// profile from the traces relayed in the pod logs.
#include "absl/strings/str_format.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kJobSets[] = "jobset.x-k8s.io/v1alpha2/jobsets";

class CliKubernetesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string kubeconfig = env_.dir().WriteFile("kube/config", fake_.Kubeconfig("ml"));
    RunResult r = env_.Dlp({"config", "set-context", "k8s", "--backend", "kubernetes", "--field",
                            "kubeconfig=" + kubeconfig, "--field", "namespace=ml", "--field",
                            "flavour=jobset", "--field", "image=dlp:test"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = env_.Dlp({"config", "use-context", "k8s"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    spec_ = env_.WriteJob("train", "echo hello", 2);
  }
  std::string Pod(const std::string& id, int index) const {
    return FakeApiServer::PodName(id, "worker", index);
  }
  // The cluster runs both workers to `codes` and sets the JobSet's condition.
  void Finish(const std::string& id, int code0, int code1) {
    fake_.EndPod("ml", Pod(id, 0), code0);
    fake_.EndPod("ml", Pod(id, 1), code1);
    if (code0 == 0 && code1 == 0) {
      fake_.SetCondition(kJobSets, "ml", id, "Completed", "True", "AllJobsCompleted");
    } else {
      fake_.SetCondition(kJobSets, "ml", id, "Failed", "True", "FailedJobs", "a job failed");
    }
  }

  FakeApiServer fake_;
  CliEnv env_;
  std::string spec_;
};

TEST_F(CliKubernetesTest, SubmitRunLogsSucceed) {
  const std::string id = env_.Submit(spec_);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(fake_.FindJob(kJobSets, id).has_value());
  EXPECT_EQ(env_.State(id), "Queued");
  fake_.StartPod("ml", id, "worker", 0);
  fake_.StartPod("ml", id, "worker", 1);
  EXPECT_EQ(env_.State(id), "Running");
  fake_.AppendLog("ml", Pod(id, 0), "hello from 0");
  fake_.AppendLog("ml", Pod(id, 1), "hello from 1");
  Finish(id, 0, 0);
  RunResult logs = env_.Dlp({"logs", id});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[worker-0] hello from 0\n"));
  EXPECT_THAT(logs.out, HasSubstr("[worker-1] hello from 1\n"));
  RunResult wait = env_.Dlp({"wait", id});
  EXPECT_EQ(wait.exit_code, 0) << wait.err;
  EXPECT_EQ(env_.State(id), "Succeeded");
  RunResult list = env_.Dlp({"list", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(id));
}

TEST_F(CliKubernetesTest, AFailingPodFailsTheJobByName) {
  const std::string id = env_.Submit(spec_);
  fake_.StartPod("ml", id, "worker", 0);
  fake_.StartPod("ml", id, "worker", 1);
  Finish(id, 0, 3);
  RunResult wait = env_.Dlp({"wait", id});
  EXPECT_EQ(wait.exit_code, 1) << wait.err;
  nlohmann::json status = env_.Status(id);
  EXPECT_EQ(status["state"], "Failed");
  EXPECT_THAT(status["reason"].get<std::string>(),
              HasSubstr("pod " + Pod(id, 1) + " (worker-1) exited with code 3"));
}

TEST_F(CliKubernetesTest, CancelDeletesTheWorkloadAndWaitSaysCancelled) {
  const std::string id = env_.Submit(spec_);
  fake_.StartPod("ml", id, "worker", 0);
  const std::string name = (*fake_.FindJob(kJobSets, id))["metadata"]["name"];
  RunResult cancel = env_.Dlp({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_FALSE(fake_.FindJob(kJobSets, id).has_value());
  EXPECT_EQ(fake_.CountRequests("jobsets/" + name + "?propagationPolicy=Foreground"), 1);
  RunResult wait = env_.Dlp({"wait", id});
  EXPECT_EQ(wait.exit_code, 5) << wait.err;
}

TEST_F(CliKubernetesTest, WaitSurvivesAWatchDroppedMidJob) {
  const std::string id = env_.Submit(spec_);
  fake_.StartPod("ml", id, "worker", 0);
  fake_.StartPod("ml", id, "worker", 1);
  auto waiter = env_.DlpInBackground({"wait", id});
  ASSERT_TRUE(Eventually([&] { return fake_.CountRequests("jobsets?allowWatchBookmarks") >= 1; }));
  fake_.DropStreams();
  ASSERT_TRUE(Eventually([&] { return fake_.CountRequests("jobsets?allowWatchBookmarks") >= 2; }));
  Finish(id, 0, 0);
  RunResult r = waiter->Wait(absl::Seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliKubernetesTest, AnRbacDenialNamesTheVerbAndResource) {
  fake_.Forbid("create", "jobsets");
  RunResult r = env_.Dlp({"submit", spec_});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr("may not create jobsets.jobset.x-k8s.io in namespace ml"));
  EXPECT_TRUE(fake_.All("/v1/configmaps").empty());  // what was created went again
}

// Each pod's dlp-run relays its rank's trace lines into the pod log
// (--relay-traces): `dlp profile` rebuilds the files from the logs, and
// `dlp logs` shows only the program's own lines.
TEST_F(CliKubernetesTest, ProfileReadsTheTracesRelayedInThePodLogs) {
  const std::string id = env_.Submit(spec_);
  ASSERT_FALSE(id.empty());
  for (int rank = 0; rank < 2; ++rank) {
    fake_.StartPod("ml", id, "worker", rank);
    const std::string file = absl::StrCat("rank-", rank, ".trace.json");
    auto relay = [&](const std::string& line) {
      fake_.AppendLog("ml", Pod(id, rank), "DLP_TRACE_LINE " + file + " " + line);
    };
    relay("[");
    relay(absl::StrFormat(
        R"({"name":"dlp_meta","ph":"M","pid":%d,"tid":0,"args":{"rank":%d,"world_size":2,"restart":0,"host":"pod-%d"}},)",
        rank, rank, rank));
    fake_.AppendLog("ml", Pod(id, rank), absl::StrCat("training on rank ", rank));
    for (int step = 0; step < 3; ++step) {
      const double start = 1000.0 + step * 10000.0;
      relay(absl::StrFormat(
          R"({"name":"forward","cat":"phase","ph":"X","ts":%.3f,"dur":4000,"pid":%d,"tid":0},)",
          start, rank));
      relay(absl::StrFormat(
          R"({"name":"allreduce wait","cat":"comm","ph":"X","ts":%.3f,"dur":%d,"pid":%d,"tid":0},)",
          start + 4000, rank == 0 ? 1000 : 5000, rank));
      relay(absl::StrFormat(
          R"({"name":"step","cat":"step","ph":"X","ts":%.3f,"dur":9000,"pid":%d,"tid":0,"args":{"samples":32}},)",
          start, rank));
    }
    relay(absl::StrFormat(R"({"name":"trace_end","ph":"i","s":"p","ts":40000,"pid":%d,"tid":0}])",
                          rank));
  }
  Finish(id, 0, 0);
  RunResult profile = env_.Dlp({"profile", id, "-o", "json"});
  ASSERT_EQ(profile.exit_code, 0) << profile.err;
  nlohmann::json summary = nlohmann::json::parse(profile.out);
  EXPECT_EQ(summary["ranks"], 2);
  ASSERT_EQ(summary["perRank"].size(), 2u);
  EXPECT_EQ(summary["perRank"][1]["host"], "pod-1");
  EXPECT_EQ(summary["perRank"][1]["steps"], 3);
  RunResult logs = env_.Dlp({"logs", id});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[worker-1] training on rank 1\n"));
  EXPECT_THAT(logs.out, Not(HasSubstr("DLP_TRACE_LINE")));
}

TEST_F(CliKubernetesTest, AnUnknownJobIsExit3) {
  RunResult r = env_.Dlp({"status", "no-such-job"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace dlp::testing
