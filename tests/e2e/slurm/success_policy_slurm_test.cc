// spec.successPolicy on the Slurm backend: rank 0's round decision ends the
// batch job when the chief succeeded, and every task stops its worker.
// Skips without the cluster.
#include <signal.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "slurm_harness.h"

namespace dlp::testing {
namespace {

TEST(SlurmSuccessPolicy, TheChiefsSuccessEndsTheJobAndStopsTheWorker) {
  SlurmEnv env("cli");
  if (!env.skip_reason().empty()) GTEST_SKIP() << env.skip_reason();
  // Two tasks: the test cluster may have two CPUs only.
  const nlohmann::json roles = {
      {"replicas",
       {{"chief",
         {{"command", {"/bin/sh", "-c", "while [ ! -f worker.pid ]; do sleep 0.1; done"}},
          {"resources", {{"cpu", "1"}}}}},
        {"worker",
         {{"command", {"/bin/sh", "-c", "echo $$ > worker.pid; while true; do sleep 1; done"}},
          {"resources", {{"cpu", "1"}}}}}}},
      {"successPolicy", {{"roles", {"chief"}}}}};
  const std::string file = env.WriteJob("ps", {"unused"}, 1, {}, roles);
  RunResult r = env.Dlp({"submit", file, "--wait", "-q"});
  const std::string id = SlurmEnv::IdFrom(r);
  RunResult logs = env.Dlp({"logs", id});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << logs.out;
  nlohmann::json job = env.Status(id);
  EXPECT_EQ(job["state"], "Succeeded") << job.dump();
  EXPECT_EQ(job["reason"],
            "every replica of chief exited 0 (successPolicy); the other replicas were stopped")
      << job.dump();
  ASSERT_EQ(job["replicas"].size(), 2u) << job.dump();
  EXPECT_EQ(job["replicas"][1]["reason"],
            "stopped: every replica of chief exited 0 (successPolicy)");
  // The batch output says why the worker was stopped.
  EXPECT_TRUE(absl::StrContains(logs.out, "every replica of chief exited 0 (successPolicy)"))
      << logs.out;
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(
      absl::StripAsciiWhitespace(ReadFileOrEmpty(env.dir().Join("worker.pid"))), &pid));
  EXPECT_NE(kill(pid, 0), 0) << "the worker still runs";
}

}  // namespace
}  // namespace dlp::testing
