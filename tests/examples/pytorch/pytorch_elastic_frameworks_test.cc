// examples/pytorch/elastic_train.py with torch 2 from PyPI, as an elastic
// job's group runs it: the real dlp-run passes SIGUSR1 on to every rank (the
// request before a resize), the ranks agree on a step, rank 0 checkpoints
// there and every rank exits 3; the group starts again at another size and
// goes on with the same global batch through torch's DistributedSampler.
// 2 ranks, then 1, then 2 again give every step the loss a rigid 2-rank run
// gives it, within 1e-5 of its value (only the gradient's averaging order
// differs), and the same final model within 1e-4 of its weights' sum.
#include <signal.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "examples/frameworks_harness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

// 512 samples in global batches of 64: 8 steps an epoch, 16 in all.
std::vector<std::string> Script(const std::string& checkpoint_dir, int delay_ms) {
  return {"elastic_train.py", "--epochs", "2", "--samples", "512", "--batch", "64",
          "--checkpoint-dir", checkpoint_dir, "--step-delay-ms", std::to_string(delay_ms)};
}

// Rank 0's RESULT line of one group's run.
nlohmann::json Rank0(const std::string& output) {
  const auto results = Results(output);
  const auto it = results.find("0");
  return it == results.end() ? nlohmann::json::object() : it->second;
}

// Starts `ranks` ranks that go on from `dir`'s checkpoint, waits until rank 0
// finished step `step`, sends dlp-run SIGUSR1 and returns rank 0's result;
// every rank exited 3 (dlp-run's status file).
nlohmann::json StopAfter(const std::string& venv, int ranks, const std::string& dir, int step) {
  const std::string status_file = absl::StrCat(dir, "/status-", ranks, ".json");
  std::vector<std::string> argv = {BinPath("dlp-run"), "-np", std::to_string(ranks),
                                   "--status-file", status_file, "--", venv + "/bin/python3"};
  for (const std::string& arg : Script(dir, 300)) argv.push_back(arg);
  Background group(argv, {.cwd = ExampleDir("pytorch"), .timeout = absl::Seconds(240)});
  const std::string reached = absl::StrCat("[0] step ", step, " ");
  EXPECT_TRUE(Eventually([&] { return group.OutputSoFar().find(reached) != std::string::npos; },
                         absl::Seconds(240)))
      << group.OutputSoFar();
  group.Signal(SIGUSR1);
  const RunResult result = group.Wait(absl::Seconds(120));
  EXPECT_EQ(result.exit_code, 128 + SIGUSR1) << result.out << result.err;
  const nlohmann::json status =
      nlohmann::json::parse(ReadFileOrEmpty(status_file), nullptr, false);
  EXPECT_TRUE(status.is_object() && status.contains("replicas")) << ReadFileOrEmpty(status_file);
  if (status.is_object() && status.contains("replicas")) {
    EXPECT_THAT(status["replicas"], SizeIs(ranks));
    for (const nlohmann::json& replica : status["replicas"]) EXPECT_EQ(replica["exitCode"], 3);
  }
  return Rank0(result.out);
}

TEST(PytorchElasticExample, TwoThenOneThenTwoRanksTrainWhatTwoRanksTrain) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  const RunResult rigid = DlpRunExample(venv, "pytorch", {"-np", "2"}, Script("", 0));
  ASSERT_EQ(rigid.exit_code, 0) << rigid.out << rigid.err;
  const nlohmann::json expected = Rank0(rigid.out);
  ASSERT_THAT(expected["losses"], SizeIs(16)) << rigid.out;

  TempDir dir;
  // 2 ranks stop after step 3 or a little later (epoch 1), 1 rank goes on
  // from there and stops after step 11 or later (epoch 2), 2 ranks end it.
  const nlohmann::json two = StopAfter(venv, 2, dir.path(), 3);
  ASSERT_TRUE(two["stopped_at"].is_number_integer()) << two.dump();
  EXPECT_GE(two["stopped_at"].get<int>(), 3);
  const nlohmann::json one = StopAfter(venv, 1, dir.path(), 11);
  EXPECT_EQ(one["resumed_from"], two["stopped_at"]);
  EXPECT_EQ(one["world"], 1);
  ASSERT_TRUE(one["stopped_at"].is_number_integer()) << one.dump();
  const RunResult end = DlpRunExample(venv, "pytorch", {"-np", "2"}, Script(dir.path(), 0));
  ASSERT_EQ(end.exit_code, 0) << end.out << end.err;
  const nlohmann::json again = Rank0(end.out);
  EXPECT_EQ(again["resumed_from"], one["stopped_at"]);
  EXPECT_EQ(again["stopped_at"], nullptr);

  // Every step once, by the group that took it, with the rigid run's loss.
  std::map<std::string, double> losses;
  for (const nlohmann::json* run : {&two, &one, &again}) {
    for (const auto& [step, loss] : (*run)["losses"].items()) {
      EXPECT_TRUE(losses.emplace(step, loss.get<double>()).second) << "step " << step << " twice";
    }
  }
  ASSERT_THAT(losses, SizeIs(16));
  for (const auto& [step, loss] : expected["losses"].items()) {
    const double want = loss.get<double>();
    EXPECT_NEAR(losses[step], want, 1e-5 * want) << "step " << step;
  }
  EXPECT_NEAR(again["checksum"].get<double>(), expected["checksum"].get<double>(), 1e-4);
}

}  // namespace
}  // namespace dlp::testing
