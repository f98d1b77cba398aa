// Waits and log follows against a real dlpd: strict query parameters, the
// per-tenant bound on long requests (429 beyond), follow heartbeats, and a
// follow whose client left giving its slot back.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "../daemon/dlpd_fixture.h"
#include "../http/raw_client.h"
#include "absl/strings/str_cat.h"
#include "dlp/client.h"

namespace dlp::testing {
namespace {

constexpr int kPerTenant = 32;  // daemon.cc

class LongRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"));
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    auto job = SubmitJson(*dlpd_->Client(), ShellJob("quiet", "exec sleep 300"));
    id_ = job.value("id", "");
    ASSERT_FALSE(id_.empty()) << job.dump();
  }
  void TearDown() override {
    if (!id_.empty()) dlpd_->Client()->Post(("/v1/jobs/" + id_ + "/cancel").c_str());
  }

  // A request sent on its own connection, not read yet.
  std::unique_ptr<RawClient> Open(const std::string& target) {
    auto client = std::make_unique<RawClient>(dlpd_->address());
    EXPECT_TRUE(client->Send(GetRequest(target, dlpd_->token())));
    return client;
  }

  // Opens `count` waits on the job (which runs for minutes) and returns once
  // exactly `refused` of them were answered 429; false after 30 s.
  bool OpenWaitsUntilRefused(int count, int refused,
                             std::vector<std::unique_ptr<RawClient>>& waits) {
    for (int i = 0; i < count; ++i) waits.push_back(Open("/v1/jobs/" + id_ + "/wait?timeout=60"));
    return Eventually(
        [&] {
          int seen = 0;
          for (auto& w : waits) seen += w->Status(absl::Milliseconds(10)) == 429;
          return seen == refused;
        },
        absl::Seconds(30));
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::string id_;
};

TEST_F(LongRequestsTest, MalformedParametersAreRefusedNamingThem) {
  const std::string job = "/v1/jobs/" + id_;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {job + "/wait?timeout=nan", "timeout"},
      {job + "/wait?timeout=inf", "timeout"},
      {job + "/wait?timeout=-1", "timeout"},
      {job + "/wait?timeout=1e999", "timeout"},
      {job + "/wait?timeout=5s", "timeout"},
      {job + "/wait?timeout=", "timeout"},
      {job + "/wait?timeout=1&timeout=2", "timeout"},
      {job + "/logs?tail=-2", "tail"},
      {job + "/logs?tail=ten", "tail"},
      {job + "/logs?follow=yes", "follow"},
      {job + "/logs?metrics=2", "metrics"},
      {"/v1/jobs?limit=-1", "limit"},
      {"/v1/jobs?limit=1.5", "limit"},
  };
  for (const auto& [target, param] : cases) {
    int status = 0;
    auto body = GetJson(*dlpd_->Client(), target, &status);
    EXPECT_EQ(status, 400) << target;
    EXPECT_EQ(body["error"].value("message", "").rfind(param + ":", 0), 0u)
        << target << ": " << body.dump();
  }
  int status = 0;
  GetJson(*dlpd_->Client(), job + "/wait?timeout=0.5", &status);
  EXPECT_EQ(status, 200);
}

TEST_F(LongRequestsTest, WaitsBeyondTheTenantBoundAreRefused) {
  std::vector<std::unique_ptr<RawClient>> waits;
  ASSERT_TRUE(OpenWaitsUntilRefused(kPerTenant + 8, 8, waits));
  int status = 0;
  GetJson(*dlpd_->Client(), "/v1/health", &status);
  EXPECT_EQ(status, 200);
  // The bound is on long requests only: the same tenant's short requests pass.
  GetJson(*dlpd_->Client(), "/v1/jobs/" + id_, &status);
  EXPECT_EQ(status, 200);
}

// libdlp's Client keeps waiting when dlpd refuses its long poll: it polls the job.
TEST_F(LongRequestsTest, AClientWaitsOnWhenItsLongPollsAreRefused) {
  // One more than the bound; which one is refused depends on arrival order.
  std::vector<std::unique_ptr<RawClient>> waits;
  ASSERT_TRUE(OpenWaitsUntilRefused(kPerTenant + 1, 1, waits));
  const std::string config = dir_.WriteFile(
      "config.yaml", absl::StrCat("current-context: owner\ncontexts:\n"
                                  "  - {name: owner, backend: remote, server: "
                                  "'http://",
                                  dlpd_->address(), "', token: ", dlpd_->token(), "}\n"));
  ClientOptions options;
  options.config_path = config;
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  WaitOptions wait;
  wait.timeout = absl::Seconds(2);
  absl::StatusOr<Job> job = (*client)->Wait(id_, wait);
  // The job runs on: the wait times out rather than failing with 429.
  EXPECT_EQ(job.status().code(), absl::StatusCode::kDeadlineExceeded) << job.status();
}

TEST_F(LongRequestsTest, SilentFollowsGetHeartbeats) {
  auto follow = Open("/v1/jobs/" + id_ + "/logs?follow=1");
  ASSERT_EQ(follow->Status(absl::Seconds(10)), 200);
  // A chunk holding one blank line, which NDJSON readers skip.
  const std::string seen = follow->ReadUntil("\r\n1\r\n\n\r\n", absl::Seconds(20));
  EXPECT_NE(seen.find("\r\n1\r\n\n\r\n"), std::string::npos) << seen;
}

TEST_F(LongRequestsTest, FollowsOfClientsThatLeftAreReleased) {
  const std::string target = "/v1/jobs/" + id_ + "/logs?follow=1";
  std::vector<std::unique_ptr<RawClient>> follows;
  for (int i = 0; i < kPerTenant; ++i) {
    follows.push_back(Open(target));
    ASSERT_EQ(follows.back()->Status(absl::Seconds(10)), 200) << "follow " << i;
  }
  auto one_more = Open(target);
  EXPECT_EQ(one_more->Status(absl::Seconds(10)), 429);
  follows.clear();  // the clients hang up without a word
  // Within a generous deadline their slots come back.
  EXPECT_TRUE(Eventually(
      [&] {
        auto follow = Open(target);
        return follow->Status(absl::Seconds(5)) == 200;
      },
      absl::Seconds(30)));
}

}  // namespace
}  // namespace dlp::testing
