// dlp profile --duration on a running job, through a real dlpd: a 2-rank
// fmnist-train that keeps training is profiled for a 2 s window; the summary
// and the merged trace hold only that window, and the job runs on.
#include <algorithm>
#include <limits>
#include <set>

#include "cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// Trains (practically) forever: small epochs, so steps and allreduces go on.
std::string EndlessTraining() {
  return absl::StrCat("exec ", BinPath("fmnist-train"),
                      " --limit-train 256 --limit-test 64 --epochs 1000000 --batch 32"
                      " --device cpu");
}

nlohmann::json ParseJson(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_discarded() ? nlohmann::json::object() : doc;
}

// Every rank has finished steps (the traces are written about every second).
bool EveryRankStepped(const nlohmann::json& p, int ranks) {
  if (!p.contains("perRank") || p["perRank"].size() != static_cast<size_t>(ranks)) return false;
  for (const nlohmann::json& r : p["perRank"]) {
    if (r["steps"].get<int>() == 0) return false;
  }
  return true;
}

int Steps(const nlohmann::json& p, int rank) {
  for (const nlohmann::json& r : p["perRank"]) {
    if (r["rank"] == rank) return r["steps"].get<int>();
  }
  return -1;
}

TEST(ProfileWindow, RunningJobIsProfiledForTheWindowOnly) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("endless", EndlessTraining(), 2, "100m"));
  ASSERT_FALSE(id.empty());
  nlohmann::json whole;
  ASSERT_TRUE(Eventually(
      [&] {
        RunResult r = env.Dlp({"profile", id, "-o", "json"});
        whole = ParseJson(r.out);
        return r.exit_code == 0 && EveryRankStepped(whole, 2);
      },
      absl::Seconds(60)))
      << whole.dump() << env.Dlp({"logs", id}).out;

  const absl::Duration window = absl::Seconds(2);
  const absl::Time before = absl::Now();
  RunResult r = env.Dlp(
      {"profile", id, "--duration", "2s", "-o", "json", "--trace", env.Work("window.json")});
  const absl::Duration took = absl::Now() - before;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("profiling for 2s"));
  EXPECT_GE(took, window);
  nlohmann::json p = ParseJson(r.out);
  EXPECT_EQ(p["ranks"], 2) << r.out;
  EXPECT_TRUE(EveryRankStepped(p, 2)) << r.out;
  EXPECT_GT(p["allreduce"]["count"].get<int>(), 0) << r.out;
  EXPECT_GT(p["allreduce"]["bytes"].get<int64_t>(), 0) << r.out;

  // The merged trace: both ranks, allreduce spans with bytes, and every span
  // starting inside one window (2 s, plus the ranks' clock offsets).
  nlohmann::json trace = ParseJson(ReadFileOrEmpty(env.Work("window.json")));
  ASSERT_TRUE(trace.contains("traceEvents")) << "no merged trace";
  std::set<int> ranks, allreduce_ranks;
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ranks.insert(e["pid"].get<int>());
    if (e["name"] == "allreduce") {
      EXPECT_GT(e["args"]["bytes"].get<int64_t>(), 0) << e.dump();
      allreduce_ranks.insert(e["pid"].get<int>());
    }
    first = std::min(first, e["ts"].get<double>());
    last = std::max(last, e["ts"].get<double>());
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
  EXPECT_EQ(allreduce_ranks, (std::set<int>{0, 1}));
  EXPECT_LT(last - first, absl::ToDoubleMicroseconds(window + absl::Milliseconds(100)))
      << "spans from " << first << " to " << last << " µs";

  // The job runs on; what it recorded in all holds more than the window.
  EXPECT_EQ(env.State(id), "Running");
  RunResult after = env.Dlp({"profile", id, "-o", "json"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  nlohmann::json all = ParseJson(after.out);
  EXPECT_GT(Steps(all, 0), Steps(p, 0));
  EXPECT_GT(Steps(all, 0) - Steps(whole, 0), 0);

  EXPECT_EQ(env.Dlp({"cancel", id}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return env.State(id) == "Cancelled"; }));
}

TEST(ProfileWindow, FinishedJobReadsWhatWasRecorded) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob(
      "short",
      absl::StrCat("exec ", BinPath("fmnist-train"),
                   " --limit-train 128 --limit-test 32 --epochs 1 --batch 32 --device cpu"),
      2, "100m"));
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0) << env.Dlp({"logs", id}).out;
  const absl::Time before = absl::Now();
  RunResult r = env.Dlp({"profile", id, "--duration", "30s", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(absl::Now() - before, absl::Seconds(20));  // no 30 s wait on a finished job
  nlohmann::json p = ParseJson(r.out);
  EXPECT_EQ(Steps(p, 0), 4) << r.out;
  EXPECT_EQ(Steps(p, 1), 4) << r.out;
}

}  // namespace
}  // namespace dlp::testing
