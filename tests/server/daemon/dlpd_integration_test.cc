// dlpd as a process: state files and modes, the lock, tokens, the API's
// submit/get/list/errors and clean shutdown. Talks HTTP to a real daemon.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "dlpd_fixture.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

TEST(DlpdTest, PublishesItsFilesWithPrivateModes) {
  TempDir dir;
  const std::string state = dir.Join("state");
  Dlpd dlpd(state);
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  EXPECT_EQ(FileMode(state), 0700);
  for (const char* name : {"dlpd.addr", "dlpd.token", "dlpd.pid", "dlpd.db", "dlpd.lock"}) {
    EXPECT_EQ(FileMode(state + "/" + name), 0600) << name;
  }
  EXPECT_EQ(dlpd.token().size(), 64u);
  EXPECT_EQ(dlpd.token().find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(dlpd.address().rfind("127.0.0.1:", 0), 0u) << dlpd.address();
  EXPECT_NE(dlpd.address(), "127.0.0.1:0");
  auto health = GetJson(*dlpd.Client(), "/v1/health");
  EXPECT_EQ(health.value("ok", false), true);
  EXPECT_EQ(health.value("pid", 0), dlpd.process().pid());
  EXPECT_FALSE(health.value("version", "").empty());
}

TEST(DlpdTest, RefusesRequestsWithoutTheRightToken) {
  TempDir dir;
  Dlpd dlpd(dir.Join("state"));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  for (const std::string& token : {std::string(), std::string(64, 'a'), dlpd.token() + "0"}) {
    for (const char* path : {"/v1/health", "/v1/jobs", "/v1/jobs/1"}) {
      int status = 0;
      auto body = GetJson(*dlpd.Client(token), path, &status);
      EXPECT_EQ(status, 401) << path << " token=" << token;
      EXPECT_EQ(body["error"].value("code", ""), "UNAUTHENTICATED");
    }
  }
  auto res = dlpd.Client("")->Post("/v1/shutdown", "", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  int status = 0;
  GetJson(*dlpd.Client(), "/v1/health", &status);
  EXPECT_EQ(status, 200);
}

TEST(DlpdTest, SubmitGetListAndErrors) {
  TempDir dir;
  Dlpd dlpd(dir.Join("state"), {"--cpus", "2"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  JobSpec spec = ShellJob("hello", "exit 0");
  spec.labels = {{"team", "vision"}};
  int status = 0;
  auto job = SubmitJson(*client, spec, &status);
  EXPECT_EQ(status, 201) << job.dump();
  EXPECT_EQ(job.value("id", ""), "1");
  EXPECT_EQ(job.value("name", ""), "hello");
  EXPECT_EQ(job.value("tenant", ""), "@owner");  // a name no tenant can have
  EXPECT_EQ(job.value("queue", ""), "default");
  EXPECT_TRUE(job["created"].is_string());
  ASSERT_TRUE(SubmitJson(*client, ShellJob("other", "exit 0")).is_object());

  auto got = GetJson(*client, "/v1/jobs/1", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(got.value("name", ""), "hello");
  ASSERT_EQ(got["replicas"].size(), 1u);
  EXPECT_EQ(got["replicas"][0].value("name", ""), "worker-0");

  auto all = GetJson(*client, "/v1/jobs");
  ASSERT_EQ(all["jobs"].size(), 2u);
  EXPECT_EQ(all["jobs"][0].value("id", ""), "1");
  auto labelled = GetJson(*client, "/v1/jobs?label=team=vision");
  ASSERT_EQ(labelled["jobs"].size(), 1u);
  EXPECT_EQ(labelled["jobs"][0].value("id", ""), "1");
  auto newest = GetJson(*client, "/v1/jobs?limit=1");
  ASSERT_EQ(newest["jobs"].size(), 1u);
  EXPECT_EQ(newest["jobs"][0].value("id", ""), "2");
  EXPECT_EQ(GetJson(*client, "/v1/jobs?queue=nope")["jobs"].size(), 0u);

  auto bad_state = GetJson(*client, "/v1/jobs?state=Sleeping", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(bad_state["error"].value("code", ""), "INVALID_ARGUMENT");
  auto missing = GetJson(*client, "/v1/jobs/42", &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(missing["error"].value("code", ""), "NOT_FOUND");
  EXPECT_EQ(missing["error"].value("message", ""), "job 42 not found");
  GetJson(*client, "/v1/jobs/42/events", &status);
  EXPECT_EQ(status, 404);

  auto huge = SubmitJson(*client, ShellJob("huge", "exit 0", 1, "64000"), &status);
  EXPECT_EQ(status, 400);
  EXPECT_NE(huge["error"].value("message", "").find("needs 64 CPUs, this machine has 2"),
            std::string::npos)
      << huge.dump();
  JobSpec invalid = ShellJob("bad", "exit 0");
  invalid.replicas[0].count = 0;
  SubmitJson(*client, invalid, &status);
  EXPECT_EQ(status, 400);
  auto garbage = client->Post("/v1/jobs", "{not json", "application/json");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  EXPECT_EQ(GetJson(*client, "/v1/jobs")["jobs"].size(), 2u);  // nothing half-stored

  auto events = GetJson(*client, "/v1/jobs/1/events");
  ASSERT_GE(events["events"].size(), 1u);
  EXPECT_EQ(events["events"][0].value("type", ""), "Submitted");
}

TEST(DlpdTest, SecondDlpdOnTheSameStateFolderIsRefused) {
  TempDir dir;
  Dlpd first(dir.Join("state"));
  ASSERT_TRUE(first.WaitReady()) << first.process().OutputSoFar();
  RunResult second = testing::Run({BinPath("dlpd"), "--state-dir", dir.Join("state"), "--listen",
                          "127.0.0.1:0"},
                         {.timeout = absl::Seconds(20)});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_NE(second.err.find("already running"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find(std::to_string(first.process().pid())), std::string::npos);
  int status = 0;
  GetJson(*first.Client(), "/v1/health", &status);  // the first one is untouched
  EXPECT_EQ(status, 200);
}

TEST(DlpdTest, ShutdownOverTheApiKeepsTheTokenForTheNextStart) {
  TempDir dir;
  const std::string state = dir.Join("state");
  std::string token;
  {
    Dlpd dlpd(state);
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    token = dlpd.token();
    ASSERT_TRUE(SubmitJson(*dlpd.Client(), ShellJob("kept", "exit 0")).is_object());
    auto res = dlpd.Client()->Post("/v1/shutdown", "", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    RunResult result = dlpd.process().Wait(absl::Seconds(20));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(ReadFileOrEmpty(state + "/dlpd.addr").empty());
  }
  Dlpd again(state);
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  EXPECT_EQ(again.token(), token);
  auto job = GetJson(*again.Client(token), "/v1/jobs/1");
  EXPECT_EQ(job.value("name", ""), "kept");
  again.process().Signal(SIGTERM);
  EXPECT_EQ(again.process().Wait(absl::Seconds(20)).exit_code, 0);
}

TEST(DlpdTest, TenantTokensSeeOnlyTheirOwnJobs) {
  TempDir dir;
  // Tenants' jobs run as their Unix accounts: dlpd runs as root.
  TestUser user;
  const std::string why = EnsureTestUser("dlptest-a", {}, &user);
  if (!why.empty()) GTEST_SKIP() << why;
  MakeSearchableUpwards(dir.path());
  const std::string tokens =
      dir.WriteFile("tokens", "# tenant token\ndlptest-a aaaaaaaaaaaaaaaaaaaa\n");
  Dlpd dlpd(dir.Join("state"), {"--tokens", tokens});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto owner = dlpd.Client();
  auto tenant = dlpd.Client("aaaaaaaaaaaaaaaaaaaa");
  ASSERT_TRUE(SubmitJson(*owner, ShellJob("mine", "exit 0")).is_object());
  auto theirs = SubmitJson(*tenant, ShellJob("theirs", "exit 0"));
  EXPECT_EQ(theirs.value("tenant", ""), "dlptest-a");
  EXPECT_EQ(GetJson(*owner, "/v1/jobs")["jobs"].size(), 2u);
  auto visible = GetJson(*tenant, "/v1/jobs");
  ASSERT_EQ(visible["jobs"].size(), 1u);
  EXPECT_EQ(visible["jobs"][0].value("name", ""), "theirs");
  int status = 0;
  GetJson(*tenant, "/v1/jobs/1", &status);
  EXPECT_EQ(status, 404);
  auto res = tenant->Post("/v1/shutdown", "", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
}

TEST(DlpdTest, HelpAndVersion) {
  RunResult help = testing::Run({BinPath("dlpd"), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--state-dir", "--listen", "--tokens", "--tls-cert", "--tls-key",
                           "--log-file", "--cpus", "--memory", "--grace-period"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
  RunResult version = testing::Run({BinPath("dlpd"), "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("dlpd "), std::string::npos);
}

}  // namespace
}  // namespace dlp::testing
