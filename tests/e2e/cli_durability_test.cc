// SIGKILL of dlpd loses no acknowledged job: every id `dlp submit` printed is
// listed by the next dlpd.
#include <fstream>
#include <set>

#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

TEST(CliDurability, SigkillKeepsEveryAcknowledgedJob) {
  CliEnv env;
  const std::string spec = env.WriteJob("durable", "true");
  std::set<std::string> ids;
  for (int i = 0; i < 20; ++i) ids.insert(env.Submit(spec));
  ASSERT_EQ(ids.size(), 20u);

  const int pid = std::atoi(ReadFileOrEmpty(env.StateDir() + "/dlpd.pid").c_str());
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] { return !ProcessAlive(pid); }));

  // The next command starts a fresh dlpd on the same state.
  RunResult r = env.Dlp({"list", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  std::set<std::string> listed;
  for (const auto& job : doc["jobs"]) listed.insert(job["id"].get<std::string>());
  for (const std::string& id : ids) EXPECT_TRUE(listed.count(id)) << "job " << id << " lost";
  const int new_pid = std::atoi(ReadFileOrEmpty(env.StateDir() + "/dlpd.pid").c_str());
  EXPECT_NE(new_pid, pid);

  // Every job still reaches a terminal state (ran, or marked lost on restart).
  std::vector<std::string> wait = {"wait", "--timeout", "60s", "-q"};
  wait.insert(wait.end(), ids.begin(), ids.end());
  RunResult w = env.Dlp(wait);
  EXPECT_THAT(w.exit_code, ::testing::AnyOf(0, 1)) << w.err;
}

}  // namespace
}  // namespace dlp::testing
