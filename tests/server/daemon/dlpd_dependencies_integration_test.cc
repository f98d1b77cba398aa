// spec.dependsOn on a real dlpd: a dependent waits (with its reason) until its
// dependency ends as required, is cancelled (with the chain after it) when it
// never can, refuses unknown jobs at submit, and keeps waiting across a
// restart of dlpd.
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

JobSpec DependsOn(JobSpec spec, const std::string& job,
                  DependencyCondition condition = DependencyCondition::kSucceeded) {
  spec.depends_on.push_back({job, condition});
  return spec;
}

class DlpdDependenciesTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_DLP_RUN(); }

  std::unique_ptr<Dlpd> Start() {
    auto dlpd = std::make_unique<Dlpd>(dir_.Join("state"), std::vector<std::string>{"--cpus", "4"});
    EXPECT_TRUE(dlpd->WaitReady()) << dlpd->process().OutputSoFar();
    return dlpd;
  }

  std::string Submit(httplib::Client& client, const JobSpec& spec) {
    int status = 0;
    auto job = SubmitJson(client, spec, &status);
    EXPECT_EQ(status, 201) << job.dump();
    return job.value("id", "");
  }

  // A job that runs until the test creates its go file.
  JobSpec Blocked(const std::string& name) {
    return ShellJob(name, absl::StrCat("while [ ! -e ", Go(), " ]; do sleep 0.05; done"));
  }
  std::string Go() const { return dir_.Join("go"); }

  TempDir dir_;
};

TEST_F(DlpdDependenciesTest, ADependentWaitsWithItsReasonThenRuns) {
  auto dlpd = Start();
  auto client = dlpd->Client();
  const std::string first = Submit(*client, Blocked("first"));
  // By name: the newest job of that name, stored as its id.
  auto second = SubmitJson(*client, DependsOn(ShellJob("second", "exit 0"), "first"));
  const std::string id = second.value("id", "");
  EXPECT_EQ(second["spec"]["dependsOn"][0].value("job", ""), first) << second.dump();
  EXPECT_EQ(second["spec"]["dependsOn"][0].value("condition", ""), "succeeded");
  ASSERT_TRUE(Eventually([&] {
    return GetJson(*client, "/v1/jobs/" + id).value("reason", "") ==
           absl::StrCat("waiting for job ", first, " (Running)");
  })) << GetJson(*client, "/v1/jobs/" + id).dump();
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + id).value("state", ""), "Queued");
  std::ofstream(Go()) << "go";
  EXPECT_EQ(WaitJob(*client, first).value("state", ""), "Succeeded");
  EXPECT_EQ(WaitJob(*client, id).value("state", ""), "Succeeded");
}

TEST_F(DlpdDependenciesTest, AFailedDependencyCancelsItsDependentsTransitively) {
  auto dlpd = Start();
  auto client = dlpd->Client();
  // It fails once the others are all queued behind it.
  const std::string failing =
      Submit(*client, ShellJob("failing", absl::StrCat("while [ ! -e ", Go(),
                                                       " ]; do sleep 0.05; done; "
                                                       "exit 3")));
  const std::string b = Submit(*client, DependsOn(ShellJob("b", "exit 0"), failing));
  const std::string c = Submit(*client, DependsOn(ShellJob("c", "exit 0"), b));
  const std::string cleanup = Submit(
      *client, DependsOn(ShellJob("cleanup", "exit 0"), failing, DependencyCondition::kFailed));
  const std::string always = Submit(
      *client, DependsOn(ShellJob("always", "exit 0"), failing, DependencyCondition::kFinished));
  const std::string only_on_failure = Submit(
      *client, DependsOn(ShellJob("report", "exit 0"), cleanup, DependencyCondition::kFailed));
  std::ofstream(Go()) << "go";
  EXPECT_EQ(WaitJob(*client, failing).value("state", ""), "Failed");

  auto b_job = WaitJob(*client, b);
  EXPECT_EQ(b_job.value("state", ""), "Cancelled");
  EXPECT_EQ(b_job.value("reason", ""), absl::StrCat("dependency job ", failing, " failed"));
  auto c_job = WaitJob(*client, c);
  EXPECT_EQ(c_job.value("state", ""), "Cancelled");
  EXPECT_EQ(c_job.value("reason", ""), absl::StrCat("dependency job ", b, " was cancelled"));
  EXPECT_EQ(WaitJob(*client, cleanup).value("state", ""), "Succeeded");
  EXPECT_EQ(WaitJob(*client, always).value("state", ""), "Succeeded");
  auto report = WaitJob(*client, only_on_failure);
  EXPECT_EQ(report.value("state", ""), "Cancelled");
  EXPECT_EQ(
      report.value("reason", ""),
      absl::StrCat("dependency job ", cleanup, " succeeded (this job runs only if it fails)"));
  bool event = false;
  const nlohmann::json events = GetJson(*client, "/v1/jobs/" + c + "/events");
  for (const auto& e : events["events"]) event = event || e.value("type", "") == "Cancelled";
  EXPECT_TRUE(event) << events.dump();
}

TEST_F(DlpdDependenciesTest, AFailureReadsAsFailed) {
  auto dlpd = Start();
  auto client = dlpd->Client();
  const std::string failing = Submit(*client, ShellJob("failing", "exit 3"));
  const std::string next = Submit(*client, DependsOn(ShellJob("next", "exit 0"), failing));
  EXPECT_EQ(WaitJob(*client, failing).value("state", ""), "Failed");
  auto job = WaitJob(*client, next);
  EXPECT_EQ(job.value("state", ""), "Cancelled");
  EXPECT_EQ(job.value("reason", ""), absl::StrCat("dependency job ", failing, " failed"));
}

TEST_F(DlpdDependenciesTest, UnknownDependenciesAreRefusedNamingThem) {
  auto dlpd = Start();
  auto client = dlpd->Client();
  for (const std::string& unknown : {std::string("999"), std::string("no-such-job")}) {
    int status = 0;
    auto reply = SubmitJson(*client, DependsOn(ShellJob("x", "exit 0"), unknown), &status);
    EXPECT_EQ(status, 400) << reply.dump();
    const std::string message = reply["error"].value("message", "");
    EXPECT_NE(message.find("spec.dependsOn[0].job"), std::string::npos) << message;
    EXPECT_NE(message.find(unknown), std::string::npos) << message;
  }
  EXPECT_TRUE(GetJson(*client, "/v1/jobs")["jobs"].empty());
}

TEST_F(DlpdDependenciesTest, AWaitingDependentKeepsWaitingAcrossARestart) {
  const std::string state = dir_.Join("state");
  std::string first, second;
  {
    auto dlpd = Start();
    auto client = dlpd->Client();
    first = Submit(*client, Blocked("first"));
    second = Submit(*client, DependsOn(ShellJob("second", "exit 0"), first));
    ASSERT_TRUE(Eventually([&] {
      return GetJson(*client, "/v1/jobs/" + second).value("reason", "") ==
             absl::StrCat("waiting for job ", first, " (Running)");
    }));
    dlpd->process().Signal(SIGKILL);
    dlpd->process().Wait(absl::Seconds(10));
    dlpd->KeepJobsRunning();
  }
  auto dlpd = Start();
  auto client = dlpd->Client();
  auto waiting = GetJson(*client, "/v1/jobs/" + second);
  EXPECT_EQ(waiting.value("state", ""), "Queued") << waiting.dump();
  EXPECT_EQ(waiting["spec"]["dependsOn"][0].value("job", ""), first);
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + first).value("state", ""), "Running");
  std::ofstream(Go()) << "go";
  EXPECT_EQ(WaitJob(*client, first).value("state", ""), "Succeeded");
  EXPECT_EQ(WaitJob(*client, second).value("state", ""), "Succeeded");
}

}  // namespace
}  // namespace dlp::testing
