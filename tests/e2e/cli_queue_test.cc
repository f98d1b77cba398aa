// Queueing when the machine is full: on a dlpd given 2 CPUs, a 2-CPU job makes
// a second one wait in Queued until it ends (all replicas or none).
#include "absl/time/time.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

absl::Time ParseTimeField(const nlohmann::json& job, const char* field) {
  absl::Time time = absl::InfinitePast();
  if (job.contains(field) && job[field].is_string()) {
    std::string error;
    EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, job[field].get<std::string>(), &time, &error))
        << error;
  }
  return time;
}

TEST(CliQueue, SecondJobWaitsUntilTheFirstEnds) {
  CliEnv env;
  // dlpd in the foreground, as a service manager runs it, with 2 CPUs to give.
  RunOptions options = env.Options();
  Background dlpd({BinPath("dlpd"), "--state-dir", env.StateDir(), "--listen", "127.0.0.1:0",
                   "--cpus", "2"},
                  options);
  ASSERT_TRUE(Eventually([&] { return env.Dlp({"server", "status"}).exit_code == 0; }))
      << dlpd.OutputSoFar();

  const std::string go = env.Work("go");
  const std::string first = env.Submit(env.WriteJob(
      "big", "while [ ! -f " + go + " ]; do sleep 0.05; done", 2, "1"));
  ASSERT_TRUE(Eventually([&] { return env.State(first) == "Running"; }));
  const std::string second = env.Submit(env.WriteJob("small", "true", 1, "1"));
  // The machine is full while `first` runs: `second` cannot have started.
  nlohmann::json queued = env.Status(second);
  EXPECT_EQ(queued["state"], "Queued") << queued.dump();
  EXPECT_EQ(env.State(first), "Running");
  RunResult listed = env.Dlp({"list", "--state", "Queued", "-o", "json"});
  EXPECT_THAT(listed.out, ::testing::HasSubstr("\"" + second + "\""));

  Touch(go);
  EXPECT_EQ(env.Dlp({"wait", first, second}).exit_code, 0);
  const nlohmann::json a = env.Status(first), b = env.Status(second);
  EXPECT_GE(ParseTimeField(b, "started"), ParseTimeField(a, "finished"))
      << a.dump() << "\n" << b.dump();

  // A job that can never fit is refused at submit with the reason.
  RunResult huge = env.Dlp({"submit", env.WriteJob("huge", "true", 3, "1")});
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_THAT(huge.err, ::testing::HasSubstr("dlp: error: "));

  EXPECT_EQ(env.Dlp({"server", "stop"}).exit_code, 0);
  EXPECT_EQ(dlpd.Wait(absl::Seconds(30)).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
