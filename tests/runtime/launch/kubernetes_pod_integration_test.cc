// dlp-run as the Kubernetes manifests run it: one real dlp-run per "pod",
// started here with the variables a pod of the workload has (DLP_POD_ROLE,
// JOB_COMPLETION_INDEX, DLP_POD_HOST_PATTERN), on one group file. The pattern
// names loopback addresses (127.0.1X.1 for replica X) in place of the pods'
// host names behind the headless Service. Each rank must get the environment
// the launcher gives it under dlpd, and write its output plainly to its
// container's stdout/stderr.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "contract/group.h"
#include "contract/trace_relay.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/free_port.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

struct Pod {
  std::string role;
  int index;
};

class KubernetesPodTest : public ::testing::Test {
 protected:
  std::vector<RunResult> RunPods(const contract::Group& group, const std::vector<Pod>& pods,
                                 const std::map<std::string, std::string>& extra_env = {},
                                 const std::vector<std::string>& extra_flags = {}) {
    const std::string path = dir_.Join("group.json");
    EXPECT_TRUE(contract::WriteGroupFile(path, group).ok());
    port_ = FreePort();
    std::vector<std::unique_ptr<Background>> running;
    for (const Pod& pod : pods) {
      RunOptions options;
      options.cwd = dir_.path();
      options.env = extra_env;
      options.env["DLP_POD_ROLE"] = pod.role;
      options.env["JOB_COMPLETION_INDEX"] = absl::StrCat(pod.index);
      options.env["DLP_POD_HOST_PATTERN"] = "127.0.1{index}.1";
      options.env["DLP_JOB_ID"] = "k7";
      // What the pod template carries, the same in every pod.
      if (!options.env.count("DLP_RDZV_SECRET")) {
        options.env["DLP_RDZV_SECRET"] = std::string(64, '5');
      }
      options.unset_env = {"DLP_TRACE_DIR", "SLURM_PROCID", "SLURM_NTASKS"};
      if (!extra_env.count("DLP_RESTART_COUNT")) options.unset_env.push_back("DLP_RESTART_COUNT");
      std::vector<std::string> argv = {BinPath("dlp-run"), "--group",  path,
                                       "--rank-source",    "kubernetes", "--rdzv-port",
                                       absl::StrCat(port_), "--grace-period", "5"};
      argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
      running.push_back(std::make_unique<Background>(argv, options));
    }
    std::vector<RunResult> results;
    for (auto& pod : running) results.push_back(pod->Wait(absl::Seconds(90)));
    return results;
  }

  static contract::Group ChiefAndWorkers(const std::string& script) {
    contract::Group group;
    group.framework = contract::Framework::kTensorFlow;
    const std::vector<std::string> command = {"/bin/sh", "-c", script};
    group.roles = {{"chief", 1, command, {{"GREETING", "hi"}}, 0},
                   {"worker", 2, command, {{"GREETING", "hi"}}, 0}};
    return group;
  }

  TempDir dir_;
  int port_ = 0;
};

constexpr char kPrintEnv[] =
    "echo \"$GREETING $DLP_REPLICA rank=$RANK/$WORLD_SIZE local=$LOCAL_RANK/$LOCAL_WORLD_SIZE "
    "master=$MASTER_ADDR:$MASTER_PORT store=$DLP_STORE_ADDR round=$DLP_RESTART_COUNT "
    "job=$DLP_JOB_ID\"; echo \"tf=$TF_CONFIG\"; echo oops >&2";

TEST_F(KubernetesPodTest, EachPodRunsItsRankWithTheLaunchersEnvironment) {
  // Started in any order: the workers wait for the chief's store.
  auto results = RunPods(ChiefAndWorkers(kPrintEnv), {{"worker", 1}, {"worker", 0}, {"chief", 0}});
  for (const RunResult& r : results) ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string master = absl::StrCat("master=127.0.10.1:", port_ + 1);
  const std::string store = absl::StrCat("store=127.0.10.1:", port_);
  // The rank's own lines, unprefixed, on the container's streams.
  EXPECT_THAT(results[2].out, HasSubstr("hi chief-0 rank=0/3 local=0/1 " + master + " " + store +
                                        " round=0 job=k7\n"));
  EXPECT_THAT(results[1].out, HasSubstr("hi worker-0 rank=1/3 local=0/1 " + master));
  EXPECT_THAT(results[0].out, HasSubstr("hi worker-1 rank=2/3 local=0/1 " + master));
  EXPECT_THAT(results[0].err, HasSubstr("oops\n"));
  EXPECT_EQ(results[0].out.rfind("hi worker-1", 0), 0u) << results[0].out;
  // TF_CONFIG names every pod by its host, as the launcher does for its hosts.
  const std::string cluster = absl::StrCat(
      R"(tf={"cluster":{"chief":["127.0.10.1:)", port_ + 2, R"("],"worker":["127.0.10.1:)",
      port_ + 3, R"(","127.0.11.1:)", port_ + 4, R"("]},"task":{"index":1,"type":"worker"}})");
  EXPECT_THAT(results[0].out, HasSubstr(cluster));
}

TEST_F(KubernetesPodTest, AFailedRankFailsEveryPodWithItsCode) {
  auto results = RunPods(ChiefAndWorkers("if [ \"$RANK\" = 2 ]; then exit 3; fi; exec sleep 60"),
                         {{"chief", 0}, {"worker", 0}, {"worker", 1}});
  // No restarts inside the pods (the workload restarts the gang): every pod
  // stops its rank and ends with the failed rank's code.
  for (const RunResult& r : results) EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
}

TEST_F(KubernetesPodTest, JobSetsRestartCountIsTheRanksRound) {
  auto results = RunPods(ChiefAndWorkers(kPrintEnv), {{"chief", 0}, {"worker", 0}, {"worker", 1}},
                         {{"DLP_RESTART_COUNT", "2"}});
  for (const RunResult& r : results) ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(results[1].out, HasSubstr(" round=2 "));
}

TEST_F(KubernetesPodTest, APodOfARoleTheGroupLacksIsASetupError) {
  auto results = RunPods(ChiefAndWorkers("true"), {{"evaluator", 0}});
  EXPECT_EQ(results[0].exit_code, 2);
  EXPECT_THAT(results[0].err, HasSubstr("DLP_POD_ROLE=evaluator: the group file has no such role"));
}

// The manifests run every pod with --relay-traces: a real trainer's trace
// files come out whole in the pod's output, next to the rank's own lines.
TEST_F(KubernetesPodTest, RelayedTracesCarryEachRanksWholeTraceFile) {
  contract::Group group;
  group.roles = {{"worker", 2,
                  {BinPath("fmnist-train"), "--epochs", "1", "--limit-train", "256",
                   "--limit-test", "64", "--batch", "64"},
                  {},
                  0}};
  auto results =
      RunPods(group, {{"worker", 0}, {"worker", 1}}, {{"TMPDIR", dir_.path()}}, {"--relay-traces"});
  for (int rank = 0; rank < 2; ++rank) {
    const RunResult& r = results[rank];
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<std::string> lines;
    for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
      auto relayed = contract::ParseTraceRelayLine(std::string_view(line.data(), line.size()));
      if (!relayed) continue;
      EXPECT_EQ(relayed->file, absl::StrCat("rank-", rank, ".trace.json"));
      lines.push_back(relayed->line);
    }
    ASSERT_GE(lines.size(), 3u) << r.out;
    EXPECT_EQ(lines.front(), "[");
    EXPECT_EQ(lines.back().back(), ']');  // closed at exit, and that came through too
    int steps = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string event = lines[i];
      event.pop_back();  // "," or "]"
      auto parsed = nlohmann::json::parse(event, nullptr, /*allow_exceptions=*/false);
      ASSERT_FALSE(parsed.is_discarded()) << lines[i];
      if (parsed.value("name", "") == "step") ++steps;
    }
    EXPECT_GT(steps, 0);
    // The trainer's own output is still there, plainly.
    EXPECT_THAT(r.out, HasSubstr("DLP_METRIC samples_per_s="));
  }
}

TEST_F(KubernetesPodTest, NoRoomForTracesRunsTheRankWithoutThem) {
  auto results = RunPods(ChiefAndWorkers("echo ran"), {{"chief", 0}, {"worker", 0}, {"worker", 1}},
                         {{"TMPDIR", dir_.Join("missing")}}, {"--relay-traces"});
  for (const RunResult& r : results) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("ran\n"));
    EXPECT_THAT(r.err, HasSubstr("cannot create a trace folder"));
    EXPECT_THAT(r.err, HasSubstr("; tracing off"));
  }
}

}  // namespace
}  // namespace dlp::testing
