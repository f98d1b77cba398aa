// `dlp logs`: following sees lines while the job runs, prefixes per replica,
// --replica, --tail and --timestamps.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(CliLogs, FollowSeesLinesWhileTheJobRuns) {
  CliEnv env;
  const std::string go = env.Work("go");
  // The job blocks until the test saw its first line: no timing involved.
  const std::string id = env.Submit(env.WriteJob(
      "follow", "echo ready-line\nwhile [ ! -f " + go + " ]; do sleep 0.05; done\necho done-line"));
  auto follower = env.DlpInBackground({"logs", "-f", id});
  ASSERT_TRUE(Eventually([&] { return follower->OutputSoFar().find("ready-line") != std::string::npos; }))
      << follower->OutputSoFar();
  EXPECT_EQ(follower->OutputSoFar().find("done-line"), std::string::npos);
  EXPECT_EQ(env.State(id), "Running");
  Touch(go);
  RunResult r = follower->Wait(absl::Seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[worker-0] ready-line\n"));
  EXPECT_THAT(r.out, HasSubstr("[worker-0] done-line\n"));
  EXPECT_EQ(env.State(id), "Succeeded");
}

// Before its logs, a queued job's follower says what it waits for (off a
// terminal: each new reason once, on stderr), then streams once it starts.
TEST(CliLogs, FollowSaysWhatAQueuedJobWaitsForThenStreams) {
  CliEnv env;
  const std::string go = env.Work("go");
  const std::string first =
      env.Submit(env.WriteJob("first", "while [ ! -f " + go + " ]; do sleep 0.05; done"));
  ASSERT_TRUE(Eventually([&] { return env.State(first) == "Running"; }));
  const std::string second = env.Submit(env.WriteJob(
      "second", "echo after-the-wait", 1, "100m", "  dependsOn: [{job: '" + first + "'}]\n"));
  auto follower = env.DlpInBackground({"logs", "-f", second});
  const std::string queued =
      "job " + second + " (second): Queued - waiting for job " + first + " (Running)\n";
  ASSERT_TRUE(Eventually([&] { return follower->OutputSoFar().find(queued) != std::string::npos; }))
      << follower->OutputSoFar();
  EXPECT_EQ(follower->OutputSoFar().find("after-the-wait"), std::string::npos);
  Touch(go);
  RunResult r = follower->Wait(absl::Seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(queued));
  EXPECT_THAT(r.out, HasSubstr("[worker-0] after-the-wait\n"));
}

TEST(CliLogs, SubmitFollowStreamsAndExitsWithTheOutcome) {
  CliEnv env;
  // Both replicas print before worker-1 fails (which terminates worker-0).
  const std::string printed = env.Work("worker-0-printed");
  const std::string spec = env.WriteJob(
      "streamed", "echo \"line from $DLP_REPLICA\"\nif [ \"$DLP_REPLICA_INDEX\" = 0 ]; then touch " +
                      printed + "; sleep 60; fi\nwhile [ ! -f " + printed +
                      " ]; do sleep 0.05; done\nexit 4",
      2);
  RunResult r = env.Dlp({"submit", spec, "--follow"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[worker-0] line from worker-0"));
  EXPECT_THAT(r.out, HasSubstr("[worker-1] line from worker-1"));
}

TEST(CliLogs, ReplicaTailAndTimestamps) {
  CliEnv env;
  const std::string id =
      env.Submit(env.WriteJob("lines", "for i in 1 2 3 4 5; do echo \"$DLP_REPLICA line $i\"; done", 2));
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0);

  RunResult all = env.Dlp({"logs", id});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("[worker-0] worker-0 line 5"));
  EXPECT_THAT(all.out, HasSubstr("[worker-1] worker-1 line 1"));

  RunResult one = env.Dlp({"logs", id, "--replica", "worker-1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, "worker-1 line 1\nworker-1 line 2\nworker-1 line 3\nworker-1 line 4\nworker-1 line 5\n");

  RunResult tail = env.Dlp({"logs", id, "--replica", "worker-0", "--tail", "2"});
  EXPECT_EQ(tail.out, "worker-0 line 4\nworker-0 line 5\n") << tail.err;

  RunResult stamped = env.Dlp({"logs", id, "--replica", "worker-0", "--timestamps", "--since", "1h"});
  EXPECT_THAT(stamped.out, ::testing::ContainsRegex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z worker-0 line 1"));
}

}  // namespace
}  // namespace dlp::testing
