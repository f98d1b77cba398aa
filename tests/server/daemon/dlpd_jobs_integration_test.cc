// dlpd running real jobs through dlp-run: success with logs, failure reasons,
// cancel of a process tree, deadlines, queueing, and SIGKILL of the daemon.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {


int ReadPid(const std::string& path) {
  int pid = 0;
  return absl::SimpleAtoi(Trimmed(ReadFileOrEmpty(path)), &pid) ? pid : 0;
}

std::vector<nlohmann::json> Ndjson(const std::string& body) {
  std::vector<nlohmann::json> out;
  for (absl::string_view line : absl::StrSplit(body, '\n', absl::SkipEmpty())) {
    out.push_back(nlohmann::json::parse(std::string(line), nullptr, false));
  }
  return out;
}

class DlpdJobsTest : public ::testing::Test {
 protected:
  std::string Flag(const std::string& name) const { return dir_.Join(name); }
  TempDir dir_;
};

TEST_F(DlpdJobsTest, SucceededJobHasLogsFromEveryReplica) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  auto job = SubmitJson(
      *client, ShellJob("hello", "echo \"hello from $DLP_REPLICA job $DLP_JOB_ID\"; echo warn >&2",
                        2, "100"));
  const std::string id = job.value("id", "");
  auto done = WaitJob(*client, id);
  ASSERT_EQ(done.value("state", ""), "Succeeded") << done.dump();
  EXPECT_EQ(done["exitCode"], 0);
  EXPECT_TRUE(done["started"].is_string());
  EXPECT_TRUE(done["finished"].is_string());
  ASSERT_EQ(done["replicas"].size(), 2u);
  for (const auto& r : done["replicas"]) {
    EXPECT_EQ(r.value("state", ""), "Succeeded");
    EXPECT_EQ(r["exitCode"], 0);
  }
  auto res = client->Get(("/v1/jobs/" + id + "/logs").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  auto lines = Ndjson(res->body);
  std::set<std::string> texts;
  int stderr_lines = 0;
  for (const auto& l : lines) {
    texts.insert(l.value("replica", "") + ": " + l.value("text", ""));
    if (l.value("stream", "") == "stderr") ++stderr_lines;
    EXPECT_EQ(l.value("time", "").back(), 'Z');
  }
  EXPECT_TRUE(texts.contains("worker-0: hello from worker-0 job " + id)) << res->body;
  EXPECT_TRUE(texts.contains("worker-1: hello from worker-1 job " + id)) << res->body;
  EXPECT_EQ(stderr_lines, 2);
  auto one = client->Get(("/v1/jobs/" + id + "/logs?replica=worker-1&tail=1").c_str());
  ASSERT_TRUE(one);
  auto tail = Ndjson(one->body);
  ASSERT_EQ(tail.size(), 1u) << one->body;
  EXPECT_EQ(tail[0].value("replica", ""), "worker-1");
  auto events = GetJson(*client, "/v1/jobs/" + id + "/events");
  std::vector<std::string> types;
  for (const auto& e : events["events"]) types.push_back(e.value("type", ""));
  EXPECT_EQ(types.front(), "Submitted");
  EXPECT_NE(std::find(types.begin(), types.end(), "Started"), types.end());
  EXPECT_EQ(types.back(), "Succeeded");
}

TEST_F(DlpdJobsTest, FailedReplicaNamesItselfInTheReason) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  auto job = SubmitJson(*client, ShellJob("fail", "[ \"$DLP_REPLICA_INDEX\" = 1 ] && exit 3; "
                                                  "exec sleep 30", 2, "100"));
  auto done = WaitJob(*client, job.value("id", ""));
  ASSERT_EQ(done.value("state", ""), "Failed") << done.dump();
  EXPECT_EQ(done.value("reason", ""), "worker-1 exited with code 3");
  EXPECT_EQ(done["exitCode"], 3);
  EXPECT_EQ(done["replicas"][1]["exitCode"], 3);
}

TEST_F(DlpdJobsTest, ReplicaThatCannotStartSaysWhyInTheReason) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  JobSpec spec = ShellJob("missing", "", 1, "100");
  spec.replicas[0].command = {"no-such-program-xyz", "--flag"};
  auto done = WaitJob(*client, SubmitJson(*client, spec).value("id", ""));
  ASSERT_EQ(done.value("state", ""), "Failed") << done.dump();
  EXPECT_EQ(done.value("reason", ""),
            "worker-0 could not start: cannot execute no-such-program-xyz: "
            "No such file or directory");
  EXPECT_EQ(done["exitCode"], 127);
  EXPECT_EQ(done["replicas"][0]["exitCode"], 127);
  EXPECT_EQ(done["replicas"][0].value("reason", ""),
            "could not start: cannot execute no-such-program-xyz: No such file or directory");
}

TEST_F(DlpdJobsTest, RestartCountComesFromDlpRun) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const std::string marker = dir_.Join("tried");
  // Fails on the first round, succeeds on the second.
  JobSpec spec = ShellJob("flaky", "[ -e " + marker + " ] && exit 0; touch " + marker +
                                       "; exit 7", 1, "100");
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 2, 0};
  const std::string id = SubmitJson(*client, spec).value("id", "");
  auto done = WaitJob(*client, id);
  ASSERT_EQ(done.value("state", ""), "Succeeded") << done.dump();
  EXPECT_EQ(done.value("restartCount", 0), 1);
  const auto events = GetJson(*client, "/v1/jobs/" + id + "/events");
  bool restarted = false;
  for (const auto& e : events["events"]) restarted |= e.value("type", "") == "Restarted";
  EXPECT_TRUE(restarted) << events.dump();
}

TEST_F(DlpdJobsTest, CancelKillsTheWholeProcessTree) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"), {"--grace-period", "1"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  // The replica's child ignores SIGTERM, so only the SIGKILL after the grace
  // period ends it.
  const std::string pid_file = dir_.Join("grandchild.pid");
  auto job = SubmitJson(*client, ShellJob("tree", "trap '' TERM; sleep 300 & echo $! > " +
                                                      pid_file + "; wait", 1, "100"));
  const std::string id = job.value("id", "");
  ASSERT_TRUE(Eventually([&] { return ReadPid(pid_file) > 0; })) << dlpd.process().OutputSoFar();
  const int grandchild = ReadPid(pid_file);
  ASSERT_TRUE(Alive(grandchild));
  auto cancel = client->Post(("/v1/jobs/" + id + "/cancel").c_str(), "", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 200);
  auto done = WaitJob(*client, id);
  ASSERT_EQ(done.value("state", ""), "Cancelled") << done.dump();
  EXPECT_EQ(done.value("reason", ""), "cancelled by user");
  EXPECT_TRUE(Eventually([&] { return !Alive(grandchild); }, absl::Seconds(10)));
  // Cancelling a terminal job changes nothing.
  auto again = client->Post(("/v1/jobs/" + id + "/cancel").c_str(), "", "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(nlohmann::json::parse(again->body).value("state", ""), "Cancelled");
}

TEST_F(DlpdJobsTest, DeadlineFailsTheJob) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"), {"--grace-period", "1"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  JobSpec spec = ShellJob("slow", "exec sleep 60", 1, "100");
  spec.active_deadline_seconds = 1;
  auto done = WaitJob(*client, SubmitJson(*client, spec).value("id", ""));
  ASSERT_EQ(done.value("state", ""), "Failed") << done.dump();
  EXPECT_EQ(done.value("reason", "").rfind("DeadlineExceeded: ", 0), 0u) << done.dump();
}

TEST_F(DlpdJobsTest, QueuedUntilResourcesFreeUp) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"), {"--cpus", "2"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const std::string go = dir_.Join("go");
  const std::string wait_for_go = "while [ ! -e " + go + " ]; do sleep 0.05; done";
  auto first = SubmitJson(*client, ShellJob("first", wait_for_go, 2, "1000"));
  auto second = SubmitJson(*client, ShellJob("second", "exit 0", 1, "1500"));
  const std::string id1 = first.value("id", ""), id2 = second.value("id", "");
  ASSERT_TRUE(Eventually([&] {
    return GetJson(*client, "/v1/jobs/" + id1).value("state", "") == "Running";
  }));
  nlohmann::json queued;
  ASSERT_TRUE(Eventually([&] {
    queued = GetJson(*client, "/v1/jobs/" + id2);
    return queued.value("reason", "").find("waiting for resources") != std::string::npos;
  })) << queued.dump();
  EXPECT_EQ(queued.value("state", ""), "Queued");
  EXPECT_EQ(queued.value("reason", ""), "waiting for resources: needs 1.5 CPUs, 0 CPUs free");
  std::ofstream(go) << "go";
  EXPECT_EQ(WaitJob(*client, id1).value("state", ""), "Succeeded");
  auto done = WaitJob(*client, id2);
  EXPECT_EQ(done.value("state", ""), "Succeeded") << done.dump();
}

TEST_F(DlpdJobsTest, FollowStreamsLinesWhileTheJobRunsAndEndsWithIt) {
  REQUIRE_DLP_RUN();
  Dlpd dlpd(dir_.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const std::string go = dir_.Join("go");
  auto job = SubmitJson(*client, ShellJob("follow", "echo first; while [ ! -e " + go +
                                                        " ]; do sleep 0.05; done; echo last",
                                          1, "100"));
  const std::string id = job.value("id", "");
  std::mutex mu;
  std::string received;
  std::atomic<bool> ended{false};
  std::thread reader([&] {
    auto stream = dlpd.Client();
    stream->Get(("/v1/jobs/" + id + "/logs?follow=1").c_str(),
                [&](const char* data, size_t n) {
                  std::lock_guard<std::mutex> lock(mu);
                  received.append(data, n);
                  return true;
                });
    ended = true;
  });
  EXPECT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return received.find("\"first\"") != std::string::npos;
  }));
  EXPECT_FALSE(ended);
  std::ofstream(go) << "go";
  EXPECT_TRUE(Eventually([&] { return ended.load(); }));
  reader.join();
  EXPECT_NE(received.find("\"last\""), std::string::npos) << received;
}

TEST_F(DlpdJobsTest, SigkilledDaemonAdoptsRunningJobsOnRestart) {
  REQUIRE_DLP_RUN();
  const std::string state = dir_.Join("state");
  const std::string go = dir_.Join("go");
  std::string token, running_id, queued_id;
  {
    Dlpd dlpd(state, {"--cpus", "1"});
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    auto client = dlpd.Client();
    token = dlpd.token();
    running_id = SubmitJson(*client, ShellJob("survivor", "echo before; while [ ! -e " + go +
                                                              " ]; do sleep 0.05; done; echo after",
                                              1, "1000"))
                     .value("id", "");
    queued_id = SubmitJson(*client, ShellJob("queued", "echo queued ran", 1, "1000"))
                    .value("id", "");
    ASSERT_TRUE(Eventually([&] {
      return ReadFileOrEmpty(state + "/jobs/" + running_id + "/logs/worker-0.log")
                 .find("before") != std::string::npos;
    }));
    EXPECT_EQ(GetJson(*client, "/v1/jobs/" + queued_id).value("state", ""), "Queued");
    dlpd.process().Signal(SIGKILL);
    dlpd.process().Wait(absl::Seconds(10));
    dlpd.KeepJobsRunning();
  }
  Dlpd again(state, {"--cpus", "1"});
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  EXPECT_EQ(again.token(), token);
  auto client = again.Client();
  auto adopted = GetJson(*client, "/v1/jobs/" + running_id);
  EXPECT_EQ(adopted.value("state", ""), "Running") << adopted.dump();
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + queued_id).value("state", ""), "Queued");
  std::ofstream(go) << "go";
  auto done = WaitJob(*client, running_id);
  EXPECT_EQ(done.value("state", ""), "Succeeded") << done.dump();
  EXPECT_EQ(WaitJob(*client, queued_id).value("state", ""), "Succeeded");
  auto logs = client->Get(("/v1/jobs/" + running_id + "/logs").c_str());
  ASSERT_TRUE(logs);
  EXPECT_NE(logs->body.find("\"before\""), std::string::npos);
  EXPECT_NE(logs->body.find("\"after\""), std::string::npos);
  bool adopted_event = false;
  const auto events = GetJson(*client, "/v1/jobs/" + running_id + "/events");
  for (const auto& e : events["events"]) {
    if (e.value("type", "") == "Adopted") adopted_event = true;
  }
  EXPECT_TRUE(adopted_event);
}

TEST_F(DlpdJobsTest, UsageOfAFinishedJobSurvivesARestart) {
  REQUIRE_DLP_RUN();
  const std::string state = dir_.Join("state");
  const std::string go = dir_.Join("go");
  std::string id;
  {
    Dlpd dlpd(state, {"--cpus", "1"});
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    auto client = dlpd.Client();
    id = SubmitJson(*client, ShellJob("sampled", "while [ ! -e " + go + " ]; do sleep 0.05; done",
                                      1, "1000"))
             .value("id", "");
    ASSERT_TRUE(Eventually([&] {
      return !GetJson(*client, "/v1/jobs/" + id + "/usage")["replicas"].empty();
    }, absl::Seconds(20)));
    std::ofstream(go) << "go";
    EXPECT_EQ(WaitJob(*client, id).value("state", ""), "Succeeded");
  }
  Dlpd again(state, {"--cpus", "1"});
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto usage = GetJson(*again.Client(), "/v1/jobs/" + id + "/usage");
  ASSERT_EQ(usage["replicas"].size(), 1u) << usage.dump();
  const auto& r = usage["replicas"][0];
  EXPECT_EQ(r.value("replica", ""), "worker-0");
  EXPECT_GT(r.value("rssBytes", int64_t{0}), 0);
  EXPECT_TRUE(r.contains("gpuUtilPercent"));
  EXPECT_FALSE(r.value("time", "").empty());
}

TEST_F(DlpdJobsTest, JobWhoseRunnerDiedWhileTheDaemonWasDownIsLost) {
  REQUIRE_DLP_RUN();
  const std::string state = dir_.Join("state");
  std::string id;
  {
    Dlpd dlpd(state);
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    auto client = dlpd.Client();
    id = SubmitJson(*client, ShellJob("doomed", "exec sleep 300", 1, "100")).value("id", "");
    nlohmann::json job;
    ASSERT_TRUE(Eventually([&] {
      job = GetJson(*client, "/v1/jobs/" + id);
      return job.is_object() && job["replicas"].size() == 1 &&
             job["replicas"][0].value("pid", 0) > 0;
    })) << job.dump();
    dlpd.process().Signal(SIGKILL);
    dlpd.process().Wait(absl::Seconds(10));
    // Kill dlp-run alone (as a crash would), leaving its rank behind.
    auto status = nlohmann::json::parse(ReadFileOrEmpty(state + "/jobs/" + id + "/status.json"));
    kill(status.value("pid", 0), SIGKILL);
    ASSERT_TRUE(Eventually([&] { return !Alive(status.value("pid", 0)); }));
    dlpd.KeepJobsRunning();
  }
  auto status = nlohmann::json::parse(ReadFileOrEmpty(state + "/jobs/" + id + "/status.json"));
  const int rank_pid = status["replicas"][0].value("pid", 0);
  Dlpd again(state);
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto job = GetJson(*again.Client(), "/v1/jobs/" + id);
  EXPECT_EQ(job.value("state", ""), "Failed");
  EXPECT_EQ(job.value("reason", ""), "lost on daemon restart");
  EXPECT_TRUE(Eventually([&] { return !Alive(rank_pid); }, absl::Seconds(10)));
}

}  // namespace
}  // namespace dlp::testing
