// What each rank's environment holds: torchrun's whole environment, so that
// scripts written for torchrun run unchanged under dlp-run.
#include "launch/rank_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "contract/group.h"
#include "launch/rank_layout.h"

namespace dlp::launch {
namespace {

using ::testing::Contains;
using ::testing::Pair;

RankLayout TwoHostsOfTwoWorkersAndAChief() {
  contract::Group group;
  group.roles = {{"worker", 3, {"w"}, {}, 0}, {"chief", 1, {"c"}, {}, 0}};
  auto layout = LayOutRanks(group, {{"localhost", 2}, {"127.0.0.2", 2}}, {}, true);
  EXPECT_TRUE(layout.ok()) << layout.status();
  return layout.ok() ? *layout : RankLayout{};
}

TEST(RankEnvironment, HasTorchrunsVariables) {
  const RankLayout layout = TwoHostsOfTwoWorkersAndAChief();
  ASSERT_EQ(layout.ranks.size(), 4u);
  ClusterInfo cluster;
  cluster.round = 2;
  cluster.max_restarts = 3;
  cluster.run_id = "17";
  // worker-2: rank 3, the second rank on the second host.
  const auto env = RankEnvironment(layout, layout.ranks[3], cluster);
  const std::map<std::string, std::string> expected = {
      {"RANK", "3"},           {"WORLD_SIZE", "4"},
      {"LOCAL_RANK", "1"},     {"LOCAL_WORLD_SIZE", "2"},
      {"GROUP_RANK", "1"},     {"GROUP_WORLD_SIZE", "2"},
      {"ROLE_NAME", "worker"}, {"ROLE_RANK", "2"},
      {"ROLE_WORLD_SIZE", "3"}, {"TORCHELASTIC_RESTART_COUNT", "2"},
      {"TORCHELASTIC_MAX_RESTARTS", "3"}, {"TORCHELASTIC_RUN_ID", "17"}};
  for (const auto& [name, value] : expected) EXPECT_THAT(env, Contains(Pair(name, value)));
  // torch's env:// rendezvous must host its own store on MASTER_PORT.
  EXPECT_EQ(env.count("TORCHELASTIC_USE_AGENT_STORE"), 0u);
}

TEST(RankEnvironment, PlainRanksAreTorchrunsDefaultRoleAndRunIdWithoutAJob) {
  contract::Group group;
  group.roles = {{"rank", 2, {"r"}, {}, 0}};
  auto layout = LayOutRanks(group, {}, {}, false);
  ASSERT_TRUE(layout.ok()) << layout.status();
  const auto env = RankEnvironment(*layout, layout->ranks[1], ClusterInfo{});
  const std::map<std::string, std::string> expected = {
      {"ROLE_NAME", "default"},     {"ROLE_RANK", "1"},
      {"ROLE_WORLD_SIZE", "2"},     {"TORCHELASTIC_RUN_ID", "none"},
      {"TORCHELASTIC_MAX_RESTARTS", "0"}};
  for (const auto& [name, value] : expected) EXPECT_THAT(env, Contains(Pair(name, value)));
}

// dlpd starts an elastic job's re-formed group (or a preempted job) with what
// its maxRestarts has left after failures; torchrun's --max-restarts, which
// TORCHELASTIC_MAX_RESTARTS shows, never changes: the group file's
// jobMaxRestarts. A change of size counts as no restart, as in torchrun.
TEST(RankEnvironment, TorchrunsMaxRestartsIsTheJobsThroughEveryReform) {
  contract::Group group;
  group.roles = {{"worker", 2, {"w"}, {}, 0}};
  group.max_restarts = 1;
  group.job_max_restarts = 3;
  group.restart_count = 2;
  auto layout = LayOutRanks(group, {}, {}, false);
  ASSERT_TRUE(layout.ok()) << layout.status();
  ClusterInfo cluster;
  cluster.round = group.restart_count;
  cluster.max_restarts = contract::TorchMaxRestarts(group);  // as dlp-run's launcher does
  const auto env = RankEnvironment(*layout, layout->ranks[1], cluster);
  EXPECT_THAT(env, Contains(Pair("TORCHELASTIC_MAX_RESTARTS", "3")));
  EXPECT_THAT(env, Contains(Pair("TORCHELASTIC_RESTART_COUNT", "2")));
  EXPECT_THAT(env, Contains(Pair("WORLD_SIZE", "2")));
  EXPECT_THAT(env, Contains(Pair("ROLE_WORLD_SIZE", "2")));
}

}  // namespace
}  // namespace dlp::launch
