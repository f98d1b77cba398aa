// dlp profile and dlp metrics through the remote backend: a dlpd serving
// HTTP on 127.0.0.1 with tenant tokens, and dlp with a context whose backend is
// remote. A 2-rank fmnist-train, submitted through that context, is profiled
// (summary and merged trace) and its metrics read, both ways they are reported;
// another tenant's token does not see them.
#include <set>

#include "cli_harness.h"
#include "gmock/gmock.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class RemoteProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    // Tenants' jobs run as their Unix accounts: dlpd runs as root.
    TestUser user;
    for (const char* name : {"dlptest-team", "dlptest-other"}) {
      const std::string why = EnsureTestUser(name, {}, &user);
      if (!why.empty()) GTEST_SKIP() << why;
    }
    MakeSearchableUpwards(env_.dir().path());
    const std::string state = env_.dir().Join("remote-state");
    const std::string tokens = env_.dir().WriteFile(
        "tokens", "dlptest-team 0123456789abcdef0123\ndlptest-other fedcba9876543210fedc\n");
    dlpd_ = std::make_unique<Background>(
        std::vector<std::string>{BinPath("dlpd"), "--state-dir", state, "--listen", "127.0.0.1:0",
                                 "--tokens", tokens},
        env_.Options());
    ASSERT_TRUE(Eventually([&] { return !ReadFileOrEmpty(state + "/dlpd.addr").empty(); },
                           absl::Seconds(20)))
        << dlpd_->OutputSoFar();
    const std::string addr(absl::StripAsciiWhitespace(ReadFileOrEmpty(state + "/dlpd.addr")));
    const std::string team = env_.dir().WriteFile("team.token", "0123456789abcdef0123\n");
    const std::string other = env_.dir().WriteFile("other.token", "fedcba9876543210fedc\n");
    config_ = env_.dir().WriteFile(
        "config.yaml", absl::StrCat("current-context: team\ncontexts:\n",
                                    "  - {name: team, backend: remote, server: \"http://", addr,
                                    "\", token-file: ", team, "}\n",
                                    "  - {name: other, backend: remote, server: \"http://", addr,
                                    "\", token-file: ", other, "}\n"));
  }

  void TearDown() override {
    if (dlpd_) {
      dlpd_->Signal(SIGTERM);
      dlpd_->Wait(absl::Seconds(30));
    }
  }

  RunResult Dlp(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--config", config_});
    return env_.Dlp(args);
  }

  CliEnv env_;
  std::unique_ptr<Background> dlpd_;
  std::string config_;
};

TEST_F(RemoteProfile, ProfileAndMetricsOfARemoteJob) {
  const std::string script =
      absl::StrCat("echo \"DLP_METRIC printed=2.5 step=7\"\nexec ", BinPath("fmnist-train"),
                   " --limit-train 512 --limit-test 64 --epochs 1 --batch 32 --device cpu");
  RunResult submitted = Dlp({"submit", "-q", env_.WriteJob("remote-train", script, 2, "100m")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripAsciiWhitespace(submitted.out));
  RunResult wait = Dlp({"wait", id});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << Dlp({"logs", id}).out;

  RunResult profile = Dlp({"profile", id, "-o", "json", "--trace", env_.Work("remote.json")});
  ASSERT_EQ(profile.exit_code, 0) << profile.err;
  nlohmann::json p = nlohmann::json::parse(profile.out, nullptr, false);
  ASSERT_TRUE(p.is_object()) << profile.out;
  EXPECT_EQ(p["ranks"], 2);
  for (const nlohmann::json& r : p["perRank"]) EXPECT_EQ(r["steps"], 16) << r.dump();
  EXPECT_GT(p["allreduce"]["count"].get<int>(), 0);
  nlohmann::json trace =
      nlohmann::json::parse(ReadFileOrEmpty(env_.Work("remote.json")), nullptr, false);
  ASSERT_TRUE(trace.is_object() && trace["traceEvents"].is_array());
  std::set<int> pids;
  for (const nlohmann::json& e : trace["traceEvents"]) pids.insert(e["pid"].get<int>());
  EXPECT_EQ(pids, (std::set<int>{0, 1}));
  RunResult table = Dlp({"profile", id});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr(absl::StrCat("Job ", id, ": 2 ranks")));

  RunResult metrics = Dlp({"metrics", id, "-o", "json"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  nlohmann::json m = nlohmann::json::parse(metrics.out, nullptr, false);
  ASSERT_TRUE(m.is_object()) << metrics.out;
  std::set<std::string> loss, printed;
  for (const nlohmann::json& point : m["metrics"]) {
    if (point["name"] == "loss") loss.insert(point["replica"].get<std::string>());
    if (point["name"] == "printed" && point["value"] == 2.5 && point["step"] == 7) {
      printed.insert(point["replica"].get<std::string>());
    }
  }
  EXPECT_EQ(loss, (std::set<std::string>{"worker-0", "worker-1"})) << metrics.out;
  EXPECT_EQ(printed, (std::set<std::string>{"worker-0", "worker-1"})) << metrics.out;
  RunResult plot = Dlp({"metrics", id, "--name", "loss", "--plot", "--replicas", "each"});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_THAT(plot.out, HasSubstr("worker-1"));

  // Another tenant's token sees neither.
  EXPECT_EQ(Dlp({"--context", "other", "profile", id}).exit_code, 3);
  EXPECT_EQ(Dlp({"--context", "other", "metrics", id}).exit_code, 3);
}

// --duration through the remote backend: the window's steps of both ranks, and
// the job runs on.
TEST_F(RemoteProfile, WindowOverARunningRemoteJob) {
  const std::string script =
      absl::StrCat("exec ", BinPath("fmnist-train"),
                   " --limit-train 256 --limit-test 64 --epochs 1000000 --batch 32 --device cpu");
  RunResult submitted = Dlp({"submit", "-q", env_.WriteJob("remote-endless", script, 2, "100m")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripAsciiWhitespace(submitted.out));
  ASSERT_TRUE(Eventually(
      [&] {
        RunResult r = Dlp({"profile", id, "-o", "json"});
        nlohmann::json p = nlohmann::json::parse(r.out, nullptr, false);
        return r.exit_code == 0 && p.is_object() && p["ranks"] == 2;
      },
      absl::Seconds(60)));
  RunResult r = Dlp({"profile", id, "--duration", "1s", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json p = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(p.is_object()) << r.out;
  EXPECT_EQ(p["ranks"], 2);
  for (const nlohmann::json& rank : p["perRank"]) EXPECT_GT(rank["steps"], 0) << r.out;
  EXPECT_GT(p["allreduce"]["count"].get<int>(), 0);
  RunResult status = Dlp({"status", id, "-o", "json"});
  EXPECT_THAT(status.out, HasSubstr("\"Running\""));
  EXPECT_EQ(Dlp({"cancel", id}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] {
    return Dlp({"status", id, "-o", "json"}).out.find("\"Cancelled\"") != std::string::npos;
  }));
}

}  // namespace
}  // namespace dlp::testing
