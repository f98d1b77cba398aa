// The launcher's pure parts: host lists, Slurm node lists, rank placement,
// the ssh command line (quoting and restart policy: tests/runtime/contract/).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/group.h"
#include "launch/rank_environment.h"
#include "launch/rank_layout.h"
#include "launch/slurm.h"
#include "launch/ssh_command.h"
#include "support/temp_dir.h"

namespace dlp::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(HostList, SlotsDefaultToOne) {
  auto hosts = ParseHostList("a:2, b ,c:3");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  ASSERT_EQ(hosts->size(), 3u);
  EXPECT_EQ((*hosts)[1].host, "b");
  EXPECT_EQ((*hosts)[1].slots, 1);
  EXPECT_EQ((*hosts)[2].slots, 3);
  EXPECT_FALSE(ParseHostList("a:0").ok());
  EXPECT_FALSE(ParseHostList("a:x").ok());
  EXPECT_FALSE(ParseHostList("").ok());
}

TEST(HostList, RefusesHostsThatSshWouldTakeForOptions) {
  auto hosts = ParseHostList("a,-oProxyCommand=touch /tmp/pwned");
  ASSERT_FALSE(hosts.ok());
  EXPECT_THAT(std::string(hosts.status().message()), ::testing::HasSubstr("cannot start with '-'"));
  testing::TempDir dir;
  const std::string file = dir.WriteFile("hosts", "a slots=2\n-oProxyCommand=x slots=1\n");
  auto from_file = ReadHostFile(file);
  ASSERT_FALSE(from_file.ok());
  EXPECT_THAT(std::string(from_file.status().message()), ::testing::HasSubstr(":2: bad host"));
}

TEST(HostList, HostFileFormats) {
  testing::TempDir dir;
  auto hosts = ReadHostFile(dir.WriteFile("hosts", "# cluster\nnode1 slots=4\nnode2:2\n\nnode3\n"));
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  ASSERT_EQ(hosts->size(), 3u);
  EXPECT_EQ((*hosts)[0].slots, 4);
  EXPECT_EQ((*hosts)[1].slots, 2);
  EXPECT_EQ((*hosts)[2].slots, 1);
  auto bad = ReadHostFile(dir.WriteFile("bad", "node1 cpus=4\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("bad:1"));
}

TEST(NodeList, ExpandsSlurmSyntax) {
  auto nodes = ExpandNodeList("node[1-3,5],gpu[08-10]x,login");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_THAT(*nodes, ElementsAre("node1", "node2", "node3", "node5", "gpu08x", "gpu09x", "gpu10x",
                                  "login"));
  auto two = ExpandNodeList("r[1-2]n[0-1]");
  ASSERT_TRUE(two.ok());
  EXPECT_THAT(*two, ElementsAre("r1n0", "r1n1", "r2n0", "r2n1"));
  EXPECT_FALSE(ExpandNodeList("node[3-1]").ok());
  EXPECT_FALSE(ExpandNodeList("node[1").ok());
}

TEST(SlurmRank, RoundComesFromTheScriptsRestartCountBeforeSlurms) {
  std::map<std::string, std::string> env = {
      {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "77"},
      {"SLURM_JOB_NODELIST", "node[1-2]"}, {"SLURM_STEP_NODELIST", "node[1-2]"},
      {"SLURM_NODEID", "1"}, {"SLURM_LOCALID", "0"}, {"SLURM_RESTART_COUNT", "1"}};
  auto requeued = SlurmRankEnvironment(env, "pytorch", 0);
  ASSERT_TRUE(requeued.ok()) << requeued.status();
  EXPECT_EQ(requeued->env.at("DLP_RDZV_ROUND"), "1");
  env["DLP_RESTART_COUNT"] = "3";
  auto restarted = SlurmRankEnvironment(env, "pytorch", 0);
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  EXPECT_EQ(restarted->env.at("DLP_RDZV_ROUND"), "3");
  EXPECT_EQ(restarted->env.at("DLP_RESTART_COUNT"), "3");
  EXPECT_EQ(restarted->env.at("TORCHELASTIC_RESTART_COUNT"), "3");
  EXPECT_EQ(restarted->env.at("RANK"), "1");
}

TEST(Placement, RolesAreOrderedAndHostsFilledInOrder) {
  contract::Group group;
  group.roles = {{"worker", 3, {"w"}, {}, 0}, {"chief", 1, {"c"}, {}, 0}, {"ps", 1, {"p"}, {}, 0}};
  auto layout = LayOutRanks(group, {{"localhost", 2}, {"127.0.0.2", 3}}, {}, true);
  ASSERT_TRUE(layout.ok()) << layout.status();
  std::vector<std::string> names;
  for (const RankPlan& r : layout->ranks) names.push_back(r.name + "@" + r.host);
  EXPECT_THAT(names, ElementsAre("chief-0@localhost", "ps-0@localhost", "worker-0@127.0.0.2",
                                 "worker-1@127.0.0.2", "worker-2@127.0.0.2"));
  EXPECT_EQ(layout->ranks[4].local_rank, 2);
  EXPECT_EQ(layout->ranks[4].local_world_size, 3);
  EXPECT_EQ(layout->ranks[4].node_rank, 1);
  EXPECT_EQ(layout->num_nodes, 2);
  EXPECT_FALSE(LayOutRanks(group, {{"localhost", 4}}, {}, true).ok());
}

TEST(Placement, DevicesPlacedByDlpdAreEachReplicasExactly) {
  contract::Group group;
  group.roles = {{"worker",
                  2,
                  {"w"},
                  {},
                  1,
                  {{"0", {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"}}}, {"MIG-abc", {}}}},
                 {"chief", 1, {"c"}, {}, 0, {{"", {}}}}};
  // The machine's --gpus do not matter once dlpd placed the replicas.
  auto layout = LayOutRanks(group, {}, {4, 5}, true);
  ASSERT_TRUE(layout.ok()) << layout.status();
  ClusterInfo cluster;
  std::vector<std::string> visible;
  for (const RankPlan& r : layout->ranks) {
    visible.push_back(r.name + "=" +
                      RankEnvironment(*layout, r, cluster).at("CUDA_VISIBLE_DEVICES"));
  }
  EXPECT_THAT(visible, ElementsAre("chief-0=", "worker-0=0", "worker-1=MIG-abc"));
  EXPECT_EQ(
      RankEnvironment(*layout, layout->ranks[1], cluster).at("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
      "50");
  EXPECT_EQ(RankEnvironment(*layout, layout->ranks[2], cluster)
                .count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
            0u);
}

TEST(SshArgv, QuotesEveryWordForTheRemoteShell) {
  auto argv = SshArgv({"ssh", 2222, "/opt/dlp/bin", {"-i", "key"}}, "h", {{"A", "x y"}}, "/w",
                      {"echo", "$HOME"});
  EXPECT_THAT(argv,
              ElementsAre("ssh", "-o", "BatchMode=yes", "-T", "-p", "2222", "-i", "key", "--", "h",
                          "'/opt/dlp/bin/dlp-run' '--exec-rank' '--workdir' '/w' '--env' "
                          "'A=x y' '--' 'echo' '$HOME'"));
}

TEST(SshArgv, KeepsTheJobSecretOffTheCommandLine) {
  // Any user of either host can read a command line (ps, /proc/PID/cmdline).
  const std::string secret(64, 'f');
  auto argv = SshArgv({}, "h", {{"A", "1"}, {"DLP_RDZV_SECRET", secret}}, "", {"true"});
  for (const std::string& word : argv) EXPECT_THAT(word, Not(HasSubstr(secret)));
  EXPECT_THAT(argv.back(), HasSubstr("'--rdzv-secret-on-stdin'"));
}

}  // namespace
}  // namespace dlp::launch
