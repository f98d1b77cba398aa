// A real dlpd over HTTP for the admin tests, run as root (CI is) so that a
// tenant's jobs can run as the test account dlptest-a; contexts "owner"
// (dlpd.token) and, once it has a token, "alice".
#pragma once

#include "cli_harness.h"
#include "support/unix_user.h"

namespace dlp::testing {

class RemoteDlpdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A tenant's jobs run as its Unix account, so dlpd runs as root (CI does).
    const std::string why = EnsureTestUser("dlptest-a", {}, &user_);
    if (!why.empty()) GTEST_SKIP() << why;
    MakeSearchableUpwards(env_.dir().path());
    state_ = env_.dir().Join("remote-state");
    dlpd_ = std::make_unique<Background>(
        std::vector<std::string>{BinPath("dlpd"), "--state-dir", state_, "--listen", "127.0.0.1:0"},
        env_.Options());
    ASSERT_TRUE(Eventually([&] { return !ReadFileOrEmpty(state_ + "/dlpd.addr").empty(); },
                           absl::Seconds(20)))
        << dlpd_->OutputSoFar();
    addr_ = std::string(absl::StripAsciiWhitespace(ReadFileOrEmpty(state_ + "/dlpd.addr")));
    WriteConfig("");
  }

  void TearDown() override {
    if (dlpd_) {
      dlpd_->Signal(SIGTERM);
      dlpd_->Wait(absl::Seconds(30));
    }
  }

  // Contexts "owner" (dlpd.token) and, once it has a token, "alice".
  void WriteConfig(const std::string& alice_token) {
    std::string yaml = absl::StrCat("current-context: owner\ncontexts:\n",
                                    "  - {name: owner, backend: remote, server: \"http://", addr_,
                                    "\", token-file: ", state_, "/dlpd.token}\n");
    if (!alice_token.empty()) {
      absl::StrAppend(&yaml, "  - {name: alice, backend: remote, server: \"http://", addr_,
                      "\", token: \"", alice_token, "\"}\n");
    }
    config_ = env_.dir().WriteFile("config.yaml", yaml);
  }

  RunResult Dlp(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--config", config_});
    return env_.Dlp(args);
  }

  TestUser user_;
  CliEnv env_;
  std::unique_ptr<Background> dlpd_;
  std::string state_, addr_, config_;
};

}  // namespace dlp::testing
