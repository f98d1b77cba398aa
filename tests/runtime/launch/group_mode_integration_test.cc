// dlp-run --group: the dlpd contract (docs/runtime-contract.md) end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <sstream>

#include "launch_test_util.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

RunResult RunGroup(const TempDir& dir, const std::string& group_json,
                   std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {DlpRun(), "--group", dir.WriteFile("group.json", group_json),
                                   "--log-dir", dir.Join("logs"), "--status-file",
                                   dir.Join("status.json")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return Run(argv, {.timeout = absl::Seconds(60)});
}

TEST(GroupMode, LogsStatusAndEnvironmentOfHeterogeneousRoles) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({
    "framework": "pytorch", "workdir": ")" + dir.path() + R"(",
    "roles": [
      {"role": "worker", "count": 2, "env": {"A": "b c"},
       "command": ["sh", "-c", "echo out $DLP_REPLICA $RANK $WORLD_SIZE $A $(pwd); echo err >&2; printf tail"]},
      {"role": "chief", "count": 1,
       "command": ["sh", "-c", "echo chief $DLP_ROLE $DLP_REPLICA_INDEX $RANK $DLP_RESTART_COUNT"]}
    ]})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Roles are numbered chief, ps, worker, evaluator: the chief is rank 0.
  const std::string chief = ReadFileOrEmpty(dir.Join("logs/chief-0.log"));
  EXPECT_THAT(chief, HasSubstr(" O chief chief 0 0 0\n"));
  const std::string worker1 = ReadFileOrEmpty(dir.Join("logs/worker-1.log"));
  EXPECT_THAT(worker1, HasSubstr(" O out worker-1 2 3 b c " + dir.path() + "\n"));
  EXPECT_THAT(worker1, HasSubstr(" E err\n"));
  EXPECT_THAT(worker1, HasSubstr(" O tail\n"));  // the partial last line
  const std::regex line(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z [OE] .*)");
  std::istringstream lines(worker1);
  for (std::string l; std::getline(lines, l);) EXPECT_TRUE(std::regex_match(l, line)) << l;

  nlohmann::json status = ReadJson(dir.Join("status.json"));
  ASSERT_FALSE(status.is_null());
  EXPECT_EQ(status["state"], "Succeeded");
  EXPECT_EQ(status["restarts"], 0);
  ASSERT_EQ(status["replicas"].size(), 3u);
  for (const auto& replica : status["replicas"]) {
    EXPECT_EQ(replica["state"], "Succeeded");
    EXPECT_EQ(replica["exitCode"], 0);
    EXPECT_TRUE(replica["signal"].is_null());
    EXPECT_EQ(replica["pid"], replica["pgid"]);
  }
  EXPECT_EQ(status["replicas"][2]["name"], "worker-1");
  EXPECT_EQ(status["replicas"][2]["rank"], 2);
}

TEST(GroupMode, LongLinesAreSplitLogsRotateAndFilesArePrivate) {
  TempDir dir;
  const mode_t old_umask = umask(0);
  // 10 MB without a newline, then a short line; logs capped at 1 MiB.
  RunResult r = RunGroup(dir, R"({
    "roles": [{"role": "worker", "count": 1,
               "command": ["sh", "-c", "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo done"]}],
    "logs": {"maxBytes": 1048576}})");
  umask(old_umask);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string current = ReadFileOrEmpty(dir.Join("logs/worker-0.log"));
  const std::string previous = ReadFileOrEmpty(dir.Join("logs/worker-0.log.1"));
  EXPECT_LE(current.size(), 1048576u);
  EXPECT_LE(previous.size(), 1048576u);
  EXPECT_GT(previous.size(), 1048576u - 70000);  // it was rotated when full
  EXPECT_THAT(current, ::testing::EndsWith(" O done\n"));
  std::istringstream lines(previous + current);
  int continued = 0;
  for (std::string l; std::getline(lines, l);) {
    EXPECT_LE(l.size(), 64u * 1024 + 64);
    if (l.find(" [dlp-run: line continues]") != std::string::npos) ++continued;
  }
  EXPECT_GE(continued, 15);  // NAME.log.1 alone holds 15 pieces of 64 KiB, each marked
  for (const char* file : {"logs/worker-0.log", "logs/worker-0.log.1", "status.json"}) {
    struct stat st;
    ASSERT_EQ(stat(dir.Join(file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << file;
  }
}

TEST(GroupMode, FailedRankFailsTheGroupAndIsNamed) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({"roles": [{"role": "worker", "count": 3, "command":
      ["sh", "-c", "if [ $RANK = 2 ]; then exit 7; fi; exec sleep 100"]}]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("rank 2 (worker-2) on host localhost exited with code 7"));
  nlohmann::json status = ReadJson(dir.Join("status.json"));
  EXPECT_EQ(status["state"], "Failed");
  EXPECT_THAT(status["reason"].get<std::string>(), HasSubstr("worker-2"));
  EXPECT_EQ(status["replicas"][2]["exitCode"], 7);
  EXPECT_EQ(status["replicas"][0]["signal"], SIGTERM);  // stopped by the launcher
}

TEST(GroupMode, OnFailureRestartsANewRoundThatSucceeds) {
  TempDir dir;
  const std::string marker = dir.Join("marker");
  RunResult r = RunGroup(dir, R"({"restartPolicy": "OnFailure", "maxRestarts": 2,
      "backoffSeconds": 0.1, "roles": [{"role": "worker", "count": 2, "command":
      ["sh", "-c", "echo round $DLP_RESTART_COUNT $DLP_RDZV_ROUND; if [ $RANK = 1 ] && [ ! -e )" +
                                    marker + R"( ]; then touch )" + marker +
                                    R"(; exit 3; fi; exit 0"]}]})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("restarting"));
  nlohmann::json status = ReadJson(dir.Join("status.json"));
  EXPECT_EQ(status["state"], "Succeeded");
  EXPECT_EQ(status["restarts"], 1);
  // Restarted rounds append to the same files.
  const std::string log = ReadFileOrEmpty(dir.Join("logs/worker-1.log"));
  EXPECT_THAT(log, HasSubstr("O round 0 0\n"));
  EXPECT_THAT(log, HasSubstr("O round 1 1\n"));
}

TEST(GroupMode, ExitCodePolicyDoesNotRestartOrdinaryFailures) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({"restartPolicy": "ExitCode", "maxRestarts": 3,
      "roles": [{"role": "worker", "count": 1, "command": ["sh", "-c", "exit 2"]}]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(ReadJson(dir.Join("status.json"))["restarts"], 0);
  TempDir dir2;
  r = RunGroup(dir2, R"({"restartPolicy": "ExitCode", "maxRestarts": 1,
      "roles": [{"role": "worker", "count": 1, "command": ["sh", "-c", "kill -9 $$"]}]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("killed by signal 9"));
  EXPECT_EQ(ReadJson(dir2.Join("status.json"))["restarts"], 1);
}

TEST(GroupMode, SigtermStopsEveryProcessTree) {
  TempDir dir;
  // Each rank ignores SIGTERM and leaves a grandchild: only SIGKILL to the
  // process group after the grace period ends them.
  const std::string group = dir.WriteFile("group.json", R"({"roles": [{"role": "worker",
      "count": 2, "command": ["sh", "-c", "trap '' TERM; sleep 100 & echo $! > )" +
                                                            dir.path() + R"(/child-$RANK; wait"]}]})");
  Background launcher({DlpRun(), "--group", group, "--log-dir", dir.Join("logs"), "--status-file",
                       dir.Join("status.json"), "--grace-period", "0.5"});
  ASSERT_TRUE(Eventually([&] {
    nlohmann::json s = ReadJson(dir.Join("status.json"));
    return !s.is_null() && s["state"] == "Running" && ReadPid(dir.Join("child-0")) > 0 &&
           ReadPid(dir.Join("child-1")) > 0;
  })) << launcher.OutputSoFar();
  const int grandchild0 = ReadPid(dir.Join("child-0"));
  const int grandchild1 = ReadPid(dir.Join("child-1"));
  launcher.Signal(SIGTERM);
  RunResult r = launcher.Wait(absl::Seconds(30));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(r.timed_out);
  nlohmann::json status = ReadJson(dir.Join("status.json"));
  EXPECT_EQ(status["state"], "Failed");
  EXPECT_THAT(status["reason"].get<std::string>(), HasSubstr("cancelled"));
  EXPECT_TRUE(Eventually([&] { return ProcessGone(grandchild0) && ProcessGone(grandchild1); }));
  for (const auto& replica : status["replicas"]) {
    EXPECT_TRUE(ProcessGone(replica["pid"].get<int>()));
  }
}

// How many times a file named `name` was renamed into the folder an inotify
// descriptor watches (each status rewrite is a rename over the last one).
int RenamesInto(int inotify_fd, const std::string& name) {
  int count = 0;
  alignas(inotify_event) char buf[16384];
  ssize_t n;
  while ((n = read(inotify_fd, buf, sizeof buf)) > 0) {
    for (char* p = buf; p < buf + n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(p);
      if ((e->mask & IN_MOVED_TO) && e->len > 0 && name == e->name) ++count;
      p += sizeof(inotify_event) + e->len;
    }
  }
  return count;
}

// A one-round job writes its status twice: started, then ended. Each rewrite
// frees an inode, and behind a backlog of short jobs the file system paid for
// a third one that the end replaced at once.
TEST(GroupMode, AShortJobWritesItsStatusTwice) {
  TempDir dir;
  const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(fd, 0);
  // IN_MOVED_FROM too: the kernel merges identical events queued back to
  // back, and each temporary file's name keeps two renames apart.
  ASSERT_GE(inotify_add_watch(fd, dir.path().c_str(), IN_MOVED_FROM | IN_MOVED_TO), 0);
  RunResult r =
      RunGroup(dir, R"({"roles": [{"role": "worker", "count": 1, "command": ["true"]}]})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RenamesInto(fd, "status.json"), 2);
  close(fd);
  EXPECT_EQ(ReadJson(dir.Join("status.json"))["state"], "Succeeded");
}

// While the round goes on, a rank's end is in the status file: rank 1 waits
// until the file shows rank 0 ended.
TEST(GroupMode, ARankThatEndedShowsWhileTheOthersRun) {
  TempDir dir;
  const std::string status = dir.Join("status.json");
  RunResult r = RunGroup(dir,
                         R"({"roles": [{"role": "worker", "count": 2, "command": ["sh", "-c",
      "[ $RANK = 0 ] && exit 0; until grep -q Succeeded )" +
                             status + R"(; do sleep 0.05; done"]}]})",
                         {"--grace-period", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadJson(status)["state"], "Succeeded");
}

TEST(GroupMode, RejectsBadGroupFiles) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({"roles": [{"role": "worker", "count": 0, "command": ["x"]}]})");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("roles[0].count"));
  r = RunGroup(dir, R"({"roles": [], )");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("invalid JSON"));
}

TEST(GroupMode, MissingProgramIsAFailureNamingIt) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({"roles": [{"role": "worker", "count": 1,
      "command": ["/nonexistent/trainer"]}]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot execute /nonexistent/trainer"));
  EXPECT_EQ(ReadJson(dir.Join("status.json"))["replicas"][0]["exitCode"], 127);
}

TEST(GroupMode, GpusAreAssignedPerReplica) {
  TempDir dir;
  RunResult r = RunGroup(dir, R"({"roles": [
      {"role": "worker", "count": 2, "gpus": 1, "command": ["sh", "-c", "echo gpu=$CUDA_VISIBLE_DEVICES"]},
      {"role": "evaluator", "count": 1, "gpus": 0, "command": ["sh", "-c", "echo gpu=${CUDA_VISIBLE_DEVICES-unset}"]}]})",
                         {"--gpus", "4,5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFileOrEmpty(dir.Join("logs/worker-0.log")), HasSubstr("O gpu=4\n"));
  EXPECT_THAT(ReadFileOrEmpty(dir.Join("logs/worker-1.log")), HasSubstr("O gpu=5\n"));
  EXPECT_THAT(ReadFileOrEmpty(dir.Join("logs/evaluator-0.log")), HasSubstr("O gpu=\n"));
}

}  // namespace
}  // namespace dlp::testing
