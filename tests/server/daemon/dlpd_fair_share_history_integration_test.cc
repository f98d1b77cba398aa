// The fair-share history on a real dlpd: a queue's recent use grows while a
// real job runs in it, GET /v1/queues shows it, and it survives a restart
// (saved in dlpd.db at shutdown, taken back at start); with
// --fair-share-half-life 0 there is none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

nlohmann::json Vision(httplib::Client& client) {
  for (const auto& q : GetJson(client, "/v1/queues")) {
    if (q.value("name", "") == "vision") return q;
  }
  return nullptr;
}

class DlpdFairShareHistoryTest : public ::testing::Test {
 protected:
  void Start(const std::string& half_life) {
    dlpd_ = std::make_unique<Dlpd>(
        dir_.Join("state"),
        std::vector<std::string>{"--cpus", "2", "--fair-share-half-life", half_life});
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    owner_ = dlpd_->Client();
  }

  void Stop() {
    dlpd_->process().Signal(SIGTERM);
    ASSERT_EQ(dlpd_->process().Wait(absl::Seconds(20)).exit_code, 0);
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> owner_;
};

TEST_F(DlpdFairShareHistoryTest, RecentUseGrowsWhileAJobRunsAndSurvivesARestart) {
  REQUIRE_DLP_RUN();
  Start("1m");
  int status = 0;
  PostJson(*owner_, "/v1/admin/queues",
           {{"name", "vision"}, {"cohort", "lab"}, {"nominal", {{"cpu", 2}}}}, &status);
  ASSERT_EQ(status, 201);
  nlohmann::json vision = Vision(*owner_);
  ASSERT_TRUE(vision.is_object());
  EXPECT_EQ(vision["halfLifeSeconds"], 60);
  EXPECT_EQ(vision["recentPercent"], 0);

  const std::string go = dir_.Join("go");
  JobSpec spec = ShellJob("holds", "while [ ! -e " + go + " ]; do sleep 0.05; done", 1, "2000");
  spec.queue = "vision";
  const std::string id = SubmitJson(*owner_, spec).value("id", "");
  // Holding its whole nominal quota, the queue's average climbs towards 100%.
  ASSERT_TRUE(Eventually([&] { return Vision(*owner_).value("recentPercent", 0) >= 5; }))
      << Vision(*owner_).dump();
  std::ofstream(go) << "go";
  EXPECT_EQ(WaitJob(*owner_, id).value("state", ""), "Succeeded");
  vision = Vision(*owner_);
  EXPECT_TRUE(vision["recent"].is_object()) << vision.dump();
  Stop();

  // A new dlpd on the same state goes on from what the last one saved.
  Start("1m");
  vision = Vision(*owner_);
  ASSERT_TRUE(vision.is_object());
  EXPECT_GE(vision.value("recentPercent", 0), 1) << vision.dump();
  Stop();

  // No history: none shown, none kept.
  Start("0");
  vision = Vision(*owner_);
  EXPECT_TRUE(vision["recent"].is_null()) << vision.dump();
  EXPECT_EQ(vision["halfLifeSeconds"], 0);
}

TEST_F(DlpdFairShareHistoryTest, ABadHalfLifeIsRefused) {
  const RunResult result =
      dlp::testing::Run({BinPath("dlpd"), "--state-dir", dir_.Join("state"), "--listen",
                         "127.0.0.1:0", "--fair-share-half-life", "soon"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err,
              ::testing::HasSubstr("--fair-share-half-life: expected a half-life such as 30m, 1h "
                                   "or 2d, or 0 (off), got \"soon\""));
}

}  // namespace
}  // namespace dlp::testing
