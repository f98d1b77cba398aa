// Exactly-once starts: dlpd commits a job's start before it spawns dlp-run, so
// a dlpd killed at any point of a start neither loses the job nor runs it
// twice. DLPD_TEST_CRASH_AT (crash_point.h) makes dlpd SIGKILL itself at
// the two points that matter; each job appends its id to a file, which counts
// its runs.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {


class DlpdStartTest : public ::testing::Test {
 protected:
  std::string State() const { return dir_.Join("state"); }
  std::string Ran() const { return dir_.Join("ran"); }
  std::string JobFile(const std::string& id, const std::string& name) const {
    return State() + "/jobs/" + id + "/" + name;
  }
  // Lines of the runs file: one per run of any job.
  std::vector<std::string> Runs() const {
    return absl::StrSplit(ReadFileOrEmpty(Ran()), '\n', absl::SkipEmpty());
  }
  // A job that appends its id to the runs file, after `script` when given.
  JobSpec Counted(const std::string& script = "") const {
    return ShellJob("counted", script + "echo \"$DLP_JOB_ID\" >> " + Ran(), 1, "100");
  }

  // Submits `spec` to a dlpd that kills itself at `crash_point`, and waits for
  // that. The first job of a fresh store is job 1; the answer may not arrive.
  void SubmitAndCrash(const std::string& crash_point, const JobSpec& spec) {
    Dlpd dlpd(State(), {}, RunOptions{.env = {{"DLPD_TEST_CRASH_AT", crash_point}}});
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    nlohmann::json job = SubmitJson(*dlpd.Client(), spec);
    if (job.is_object()) {
      EXPECT_EQ(job.value("id", ""), "1") << job.dump();
    }
    RunResult died = dlpd.process().Wait(absl::Seconds(30));
    ASSERT_TRUE(!died.timed_out && died.signal == SIGKILL)
        << "dlpd did not stop at " << crash_point << ": " << dlpd.process().OutputSoFar();
    dlpd.KeepJobsRunning();
  }

  std::vector<std::string> EventTypes(httplib::Client& client, const std::string& id) {
    std::vector<std::string> types;
    const nlohmann::json events = GetJson(client, "/v1/jobs/" + id + "/events");
    for (const auto& e : events["events"]) {
      types.push_back(e.value("type", ""));
    }
    return types;
  }

  TempDir dir_;
};

TEST_F(DlpdStartTest, CrashAfterTheStartRecordStartsTheJobOnce) {
  REQUIRE_DLP_RUN();
  SubmitAndCrash("after-starting", Counted());
  // Nothing was spawned: no output file, no run.
  EXPECT_NE(access(JobFile("1", "dlp-run.out").c_str(), F_OK), 0);
  EXPECT_TRUE(Runs().empty());

  Dlpd again(State());
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto client = again.Client();
  EXPECT_EQ(WaitJob(*client, "1").value("state", ""), "Succeeded");
  EXPECT_EQ(Runs(), std::vector<std::string>{"1"});
  std::vector<std::string> types = EventTypes(*client, "1");
  EXPECT_NE(std::find(types.begin(), types.end(), "StartRetried"), types.end());
}

TEST_F(DlpdStartTest, CrashAfterSpawnWithTheRunnerFinishedDoesNotRunItAgain) {
  REQUIRE_DLP_RUN();
  SubmitAndCrash("after-spawn", Counted());
  // The runner outlives dlpd and finishes while no dlpd runs.
  ASSERT_TRUE(Eventually([&] {
    return ReadFileOrEmpty(JobFile("1", "status.json")).find("\"Succeeded\"") !=
               std::string::npos &&
           Runs().size() == 1;
  }));
  auto status = nlohmann::json::parse(ReadFileOrEmpty(JobFile("1", "status.json")));
  const int runner = status.value("pid", 0);
  ASSERT_TRUE(Eventually([&] { return runner > 0 && !Alive(runner); }));

  Dlpd again(State());
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto client = again.Client();
  auto job = WaitJob(*client, "1");
  EXPECT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  EXPECT_EQ(Runs(), std::vector<std::string>{"1"});
}

TEST_F(DlpdStartTest, CrashAfterSpawnWithTheRunnerAliveAdoptsIt) {
  REQUIRE_DLP_RUN();
  const std::string go = dir_.Join("go");
  SubmitAndCrash("after-spawn", Counted("while [ ! -e " + go + " ]; do sleep 0.05; done; "));
  ASSERT_TRUE(Eventually([&] { return access(JobFile("1", "status.json").c_str(), F_OK) == 0; }));

  Dlpd again(State());
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto client = again.Client();
  EXPECT_EQ(GetJson(*client, "/v1/jobs/1").value("state", ""), "Running");
  std::ofstream(go) << "go";
  EXPECT_EQ(WaitJob(*client, "1").value("state", ""), "Succeeded");
  EXPECT_EQ(Runs(), std::vector<std::string>{"1"});
  std::vector<std::string> types = EventTypes(*client, "1");
  EXPECT_NE(std::find(types.begin(), types.end(), "Adopted"), types.end());
}

}  // namespace
}  // namespace dlp::testing
