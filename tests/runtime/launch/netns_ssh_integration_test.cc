// dlp-run across real hosts: three network namespaces on one bridge, an
// OpenSSH server in each (keys made for the test), and dlp-run started inside
// the first one. Ranks on the other namespaces go through real ssh. Needs root,
// `ip netns` and /usr/sbin/sshd; skipped otherwise. All traffic stays on the
// namespaces' own bridge.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "launch_test_util.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kHosts = 3;

std::string Script() { return std::string(DLP_SOURCE_DIR) + "/scripts/netns-ssh.sh"; }

class NetnsSsh : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
    if (!std::filesystem::exists("/usr/sbin/sshd")) GTEST_SKIP() << "no /usr/sbin/sshd";
    if (::dlp::testing::Run({"ip", "netns", "list"}).exit_code != 0) {
      GTEST_SKIP() << "`ip netns` is unavailable";
    }
    prefix_ = absl::StrCat("dlpt", getpid(), "x", ++counter_);
    keys_ = dir_.Join("ssh");
    RunResult up = ::dlp::testing::Run({Script(), "up", prefix_, keys_, absl::StrCat(kHosts)});
    started_ = true;
    if (up.exit_code != 0) {
      if (up.err.find("Operation not permitted") != std::string::npos) {
        GTEST_SKIP() << "network namespaces not permitted here: " << up.err;
      }
      FAIL() << "setting up namespaces failed: " << up.err;
    }
  }
  void TearDown() override {
    if (started_) ::dlp::testing::Run({Script(), "down", prefix_, keys_, absl::StrCat(kHosts)});
  }

  // dlp-run inside the first namespace, across all three (or the given hosts).
  std::vector<std::string> DlpRunInNamespace(
      std::vector<std::string> args,
      const std::string& hosts = "10.77.0.1:1,10.77.0.2:1,10.77.0.3:1") {
    std::vector<std::string> argv = {"ip", "netns", "exec", prefix_ + "-0", DlpRun(), "-H", hosts};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  RunOptions SshOptions() {
    RunOptions options;
    options.env["DLP_SSH_OPTS"] = absl::StrCat("-i ", keys_, "/id -o UserKnownHostsFile=", keys_,
                                               "/known_hosts -o ConnectTimeout=5");
    options.timeout = absl::Seconds(60);
    return options;
  }

  TempDir dir_;
  std::string prefix_, keys_;
  bool started_ = false;
  static inline int counter_ = 0;
};

TEST_F(NetnsSsh, RanksOnEveryHostReachTheStoreAndFinish) {
  // A training-like step: every rank connects to the rendezvous store the
  // launcher hosts, then reports where it ran.
  RunResult r = ::dlp::testing::Run(
      DlpRunInNamespace({"--", "bash", "-c",
                         "exec 3<>/dev/tcp/${DLP_STORE_ADDR%:*}/${DLP_STORE_ADDR#*:} && "
                         "echo step rank=$RANK of $WORLD_SIZE host=$DLP_HOST_ID master=$MASTER_ADDR"}),
      SshOptions());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("[0] step rank=0 of 3 host=10.77.0.1 master=10.77.0.1\n"));
  EXPECT_THAT(r.out, HasSubstr("[1] step rank=1 of 3 host=10.77.0.2 master=10.77.0.1\n"));
  EXPECT_THAT(r.out, HasSubstr("[2] step rank=2 of 3 host=10.77.0.3 master=10.77.0.1\n"));
}

TEST_F(NetnsSsh, FmnistTrainsAcrossTwoHosts) {
  // The real trainer, one rank per namespace. Different host ids make the
  // communicator use TCP; each rank advertises the address that routes to the
  // store (its own namespace's bridge address, see DLP_ADVERTISE_ADDR), which
  // the other namespace can reach. The binary lives on the shared filesystem,
  // so the same absolute path works on both hosts.
  RunResult r = ::dlp::testing::Run(
      DlpRunInNamespace({"--", BinPath("fmnist-train"), "--epochs", "1", "--limit-train", "512",
                         "--limit-test", "200", "--batch", "64", "--device", "cpu"},
                        "10.77.0.1:1,10.77.0.2:1"),
      SshOptions());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json epoch;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    if (!absl::ConsumePrefix(&line, "[0] {")) continue;
    epoch = nlohmann::json::parse(absl::StrCat("{", line), nullptr, /*allow_exceptions=*/false);
  }
  ASSERT_TRUE(epoch.is_object()) << "no JSON epoch line from rank 0:\n" << r.out << r.err;
  EXPECT_EQ(epoch["epoch"], 1) << epoch.dump();
  ASSERT_TRUE(epoch.contains("test_accuracy")) << epoch.dump();
  EXPECT_GT(epoch["test_accuracy"].get<double>(), 0.0) << epoch.dump();
  EXPECT_THAT(r.out, Not(HasSubstr("[1] {")));  // only rank 0 reports
}

TEST_F(NetnsSsh, KilledRemoteRankIsReportedAndTheGroupRestarts) {
  // In round 0 every rank records its pid and waits; the test kills rank 2
  // (on the third namespace). Round 1 finishes at once.
  const std::string work = dir_.path();
  Background launcher(
      DlpRunInNamespace({"--max-restarts", "1", "--grace-period", "2", "--", "sh", "-c",
                         "if [ $DLP_RESTART_COUNT = 0 ]; then echo $$ > " + work +
                             "/pid-$RANK.tmp && mv " + work + "/pid-$RANK.tmp " + work +
                             "/pid-$RANK; exec sleep 100; fi; echo finished $RANK"}),
      SshOptions());
  ASSERT_TRUE(Eventually([&] { return ReadPid(dir_.Join("pid-2")) > 0; }))
      << launcher.OutputSoFar();
  const int remote = ReadPid(dir_.Join("pid-2"));
  ASSERT_EQ(kill(remote, SIGKILL), 0);
  RunResult r = launcher.Wait(absl::Seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("rank 2 (rank-2) on host 10.77.0.3 exited with code 137 "
                               "(killed by signal 9"));
  EXPECT_THAT(r.err, HasSubstr("restarting the group"));
  for (int rank = 0; rank < kHosts; ++rank) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("[", rank, "] finished ", rank, "\n")));
    // Round 0's ranks on every host were stopped.
    EXPECT_TRUE(Eventually([&] { return ProcessGone(ReadPid(dir_.Join(absl::StrCat("pid-", rank)))); }));
  }
}

TEST_F(NetnsSsh, HostThatRefusesSshIsNamed) {
  // Port 2 has no server: ssh exits 255, which names the host.
  RunResult r = ::dlp::testing::Run(DlpRunInNamespace({"--ssh-port", "2", "--", "true"}),
                                    SshOptions());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("stopped answering or refused ssh"));
}

}  // namespace
}  // namespace dlp::testing
