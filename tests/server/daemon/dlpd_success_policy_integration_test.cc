// spec.successPolicy under a real dlpd and dlp-run: a parameter-server job
// ends when its chief ends, its workers are stopped and the job says why; a
// failure before that still follows restartPolicy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

int ReadPid(const std::string& path) {
  int pid = 0;
  return absl::SimpleAtoi(Trimmed(ReadFileOrEmpty(path)), &pid) ? pid : 0;
}

class DlpdSuccessPolicyTest : public ::testing::Test {
 protected:
  // A chief running `chief` and two workers that serve until stopped, each
  // writing its shell's pid to DIR/worker-N.pid; worker-1 ignores SIGTERM,
  // so only the SIGKILL after the grace period ends it.
  JobSpec ParameterServerJob(const std::string& chief) const {
    JobSpec spec;
    spec.name = "ps";
    spec.workdir = dir_.path();
    spec.replicas.push_back({.role = "chief", .count = 1, .command = {"/bin/sh", "-c", chief}});
    spec.replicas.push_back(
        {.role = "worker",
         .count = 2,
         .command = {"/bin/sh", "-c",
                     "echo $$ > worker-$DLP_REPLICA_INDEX.pid\n"
                     "if [ $DLP_REPLICA_INDEX = 1 ]; then trap '' TERM; fi\n"
                     "while true; do sleep 1; done"}});
    for (ReplicaSpec& r : spec.replicas) r.resources.cpu_millis = 100;
    spec.preemption.grace_period_seconds = 1;
    spec.success_policy.roles = {"chief"};
    return spec;
  }
  bool WorkersStarted() const {
    return ReadPid(dir_.Join("worker-0.pid")) > 0 && ReadPid(dir_.Join("worker-1.pid")) > 0;
  }

  TempDir dir_;
};

TEST_F(DlpdSuccessPolicyTest, TheChiefsSuccessEndsTheJobAndStopsTheWorkers) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"), {"--grace-period", "1"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const JobSpec spec =
      ParameterServerJob("while [ ! -f go ]; do sleep 0.05; done; echo chief done");
  const std::string id = SubmitJson(*client, spec).value("id", "");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(Eventually([&] { return WorkersStarted(); })) << dlpd.process().OutputSoFar();
  const int worker0 = ReadPid(dir_.Join("worker-0.pid"));
  const int worker1 = ReadPid(dir_.Join("worker-1.pid"));
  EXPECT_TRUE(Alive(worker0) && Alive(worker1));
  dir_.WriteFile("go", "");

  const nlohmann::json done = WaitJob(*client, id);
  ASSERT_EQ(done.value("state", ""), "Succeeded") << done.dump();
  EXPECT_EQ(done["exitCode"], 0);
  EXPECT_EQ(done.value("reason", ""),
            "every replica of chief exited 0 (successPolicy); the other replicas were stopped");
  // Stopped, the one ignoring SIGTERM included (SIGKILL after the grace period).
  EXPECT_FALSE(Alive(worker0));
  EXPECT_FALSE(Alive(worker1));
  ASSERT_EQ(done["replicas"].size(), 3u);
  EXPECT_EQ(done["replicas"][0].value("name", ""), "chief-0");
  EXPECT_EQ(done["replicas"][0]["exitCode"], 0);
  for (int i = 1; i <= 2; ++i) {
    const nlohmann::json& worker = done["replicas"][i];
    EXPECT_EQ(worker.value("state", ""), "Succeeded") << worker.dump();
    EXPECT_EQ(worker.value("reason", ""),
              "stopped: every replica of chief exited 0 (successPolicy)");
  }
  EXPECT_EQ(done["replicas"][2]["signal"], SIGKILL);

  // The events say why, and count no stopped worker as a failure.
  const nlohmann::json events = GetJson(*client, "/v1/jobs/" + id + "/events");
  bool succeeded = false;
  for (const auto& e : events["events"]) {
    EXPECT_NE(e.value("type", ""), "ReplicaFailed") << events.dump();
    succeeded |= e.value("type", "") == "Succeeded" &&
                 absl::StrContains(e.value("message", ""), "every replica of chief exited 0");
  }
  EXPECT_TRUE(succeeded) << events.dump();
  EXPECT_THAT(ReadFileOrEmpty(dir_.Join("state/jobs/" + id + "/dlp-run.out")),
              HasSubstr("every replica of chief exited 0 (successPolicy)"));
}

TEST_F(DlpdSuccessPolicyTest, AChiefFailureStillFollowsTheRestartPolicy) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"), {"--grace-period", "1"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  // The chief fails once the workers run, in every round, keeping the
  // round's worker pids as rROUND-worker-N.pid.
  JobSpec spec = ParameterServerJob(
      "while [ ! -f worker-0.pid ] || [ ! -f worker-1.pid ]; do sleep 0.05; done\n"
      "for n in 0 1; do mv worker-$n.pid r$DLP_RESTART_COUNT-worker-$n.pid; done; exit 3");
  spec.restart_policy = {.policy = RestartPolicyKind::kOnFailure, .max_restarts = 1};
  const std::string id = SubmitJson(*client, spec).value("id", "");
  ASSERT_FALSE(id.empty());

  const nlohmann::json done = WaitJob(*client, id);
  ASSERT_EQ(done.value("state", ""), "Failed") << done.dump();
  EXPECT_EQ(done["exitCode"], 3);
  EXPECT_EQ(done["restartCount"], 1);
  EXPECT_THAT(done.value("reason", ""), HasSubstr("chief-0"));
  EXPECT_THAT(done.value("reason", ""), HasSubstr("exited with code 3"));
  EXPECT_EQ(done["replicas"][0].value("state", ""), "Failed");
  for (int round = 0; round <= 1; ++round) {
    for (int n = 0; n <= 1; ++n) {
      const int pid = ReadPid(dir_.Join(absl::StrCat("r", round, "-worker-", n, ".pid")));
      EXPECT_GT(pid, 0) << "round " << round << " worker " << n;
      EXPECT_FALSE(Alive(pid)) << "round " << round << " worker " << n;
    }
  }
}

}  // namespace
}  // namespace dlp::testing
