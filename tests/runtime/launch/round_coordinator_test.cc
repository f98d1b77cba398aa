// Rank 0's decisions under `srun dlp-run --group`, from the tasks' events.
#include "launch/round_coordinator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

namespace dlp::launch {
namespace {

using ::testing::ElementsAre;

class RoundCoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    group_.roles = {{"worker", 2, {"w"}, {}, 0}, {"chief", 1, {"c"}, {}, 0}};
    group_.restart_policy = contract::RestartPolicy::kExitCode;
    group_.max_restarts = 1;
    auto layout = LayOutRanks(group_, {}, {}, false);
    ASSERT_TRUE(layout.ok());
    layout_ = *layout;
    coordinator_ = std::make_unique<RoundCoordinator>(
        group_, layout_, [this](const std::string& line) { lines_.push_back(line); });
    coordinator_->StartRound(0);
  }
  static contract::RankStatus Ended(std::optional<int> code, std::optional<int> sig) {
    contract::RankStatus s;
    s.exit_code = code;
    s.signal = sig;
    return s;
  }

  contract::Group group_;
  RankLayout layout_;
  std::unique_ptr<RoundCoordinator> coordinator_;
  std::vector<std::string> lines_;
};

TEST_F(RoundCoordinatorTest, DoneOnceEveryRankSucceeded) {
  EXPECT_FALSE(coordinator_->OnEvent(StartEvent(0, 10, "node1")));
  EXPECT_EQ(coordinator_->status().state, "Starting");
  EXPECT_FALSE(coordinator_->OnEvent(StartEvent(1, 11, "node1")));
  EXPECT_FALSE(coordinator_->OnEvent(StartEvent(2, 12, "node2")));
  EXPECT_EQ(coordinator_->status().state, "Running");
  // Ranks follow the launcher's numbering: the chief first.
  EXPECT_EQ(coordinator_->status().replicas[0].name, "chief-0");
  EXPECT_EQ(coordinator_->status().replicas[2].host, "node2");
  EXPECT_FALSE(coordinator_->OnEvent(ExitEvent(0, Ended(0, {}))));
  EXPECT_FALSE(coordinator_->OnEvent(ExitEvent(2, Ended(0, {}))));
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(1, Ended(0, {}))), kDone);
  EXPECT_EQ(coordinator_->status().state, "Succeeded");
  EXPECT_FALSE(coordinator_->OnEvent("garbage"));
}

// successPolicy {roles: [chief]}: done once the chief succeeded; the workers
// still running are stopped by the tasks and reported as stopped, not failed.
TEST_F(RoundCoordinatorTest, SuccessPolicyIsDoneOnceItsRolesSucceeded) {
  group_.success_roles = {"chief"};
  for (int rank = 0; rank < 3; ++rank) coordinator_->OnEvent(StartEvent(rank, 10 + rank, "n"));
  EXPECT_FALSE(coordinator_->OnEvent(ExitEvent(1, Ended(0, {}))));  // a worker: simply done
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(0, Ended(0, {}))), kDone);
  const contract::GroupStatus& status = coordinator_->status();
  EXPECT_EQ(status.state, "Succeeded");
  EXPECT_EQ(status.reason, "every replica of chief exited 0 (successPolicy); the other replicas "
                           "were stopped");
  EXPECT_EQ(status.replicas[1].reason, "");
  EXPECT_EQ(status.replicas[2].state, "Succeeded");
  EXPECT_EQ(status.replicas[2].reason, "stopped: every replica of chief exited 0 (successPolicy)");
  EXPECT_EQ(lines_.back(), status.reason);
}

TEST_F(RoundCoordinatorTest, SuccessPolicyStillFailsOnAnEarlierFailure) {
  group_.success_roles = {"chief"};
  for (int rank = 0; rank < 3; ++rank) coordinator_->OnEvent(StartEvent(rank, 10 + rank, "n"));
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(2, Ended(4, {}))), "fail 4");
  EXPECT_EQ(coordinator_->status().state, "Failed");
  EXPECT_EQ(coordinator_->status().replicas[0].signal, SIGTERM);
}

TEST_F(RoundCoordinatorTest, ExitCodePolicyRestartsSignalsOnlyAndCountsRounds) {
  coordinator_->OnEvent(StartEvent(0, 10, "n"));
  coordinator_->OnEvent(StartEvent(1, 11, "n"));
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(1, Ended({}, SIGKILL))), kRestart);
  EXPECT_EQ(coordinator_->status().replicas[0].signal, SIGTERM);  // stopped by the decision
  EXPECT_EQ(lines_.back(), "attempt 0 exited with code 137; restart 1 of 1");

  coordinator_->StartRound(1);
  EXPECT_EQ(coordinator_->status().restarts, 1);
  EXPECT_EQ(coordinator_->status().replicas[1].signal, std::nullopt);
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(2, Ended({}, SIGKILL))), "fail 137");
  EXPECT_EQ(coordinator_->status().state, "Failed");
  EXPECT_EQ(lines_.back(), "attempt 1 exited with code 137; no restarts left");
  EXPECT_EQ(JobExitCode(Ended({}, 9)), 137);
}

TEST_F(RoundCoordinatorTest, PlainFailureUnderExitCodeFailsAtOnce) {
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(0, Ended(3, {}))), "fail 3");
  EXPECT_THAT(coordinator_->status().reason, ::testing::HasSubstr("chief-0"));
  EXPECT_THAT(lines_, ElementsAre(::testing::HasSubstr("exited with code 3; stopping"),
                                  "attempt 0 exited with code 3; no restarts left"));
}

// A rank on another node that could not start says why in rank 0's status,
// as a local one does; an event without a reason (an older task) still parses.
TEST_F(RoundCoordinatorTest, ARankThatCouldNotStartSaysWhyThroughItsExitEvent) {
  contract::RankStatus failed = Ended(127, {});
  failed.reason = "could not start: cannot execute x y: No such file or directory";
  EXPECT_EQ(ExitEvent(1, failed),
            "exit 1 127 0 could not start: cannot execute x y: No such file or directory");
  EXPECT_EQ(coordinator_->OnEvent(ExitEvent(1, failed)), "fail 127");
  EXPECT_EQ(coordinator_->status().replicas[1].reason, failed.reason);
  EXPECT_EQ(coordinator_->status().replicas[1].exit_code, 127);
  EXPECT_EQ(coordinator_->status().reason,
            "rank 1 (worker-0) on host localhost could not start: cannot execute x y: No such "
            "file or directory");

  failed.reason = std::string(5000, 'r');
  EXPECT_EQ(ExitEvent(2, failed).size(),
            std::string("exit 2 127 0 ").size() + kMaxEventReasonBytes);
  coordinator_->StartRound(1);
  EXPECT_EQ(coordinator_->status().replicas[1].reason, "");
  EXPECT_EQ(coordinator_->OnEvent("exit 2 127 0"), "fail 127");
  EXPECT_EQ(coordinator_->status().replicas[2].reason, "");
  EXPECT_EQ(coordinator_->status().replicas[2].exit_code, 127);
}

}  // namespace
}  // namespace dlp::launch
