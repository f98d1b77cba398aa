// fmnist-train as an elastic job's group runs it: the real dlp-run passes
// SIGUSR1 on to every rank (the request before a resize), the ranks agree on
// a step, rank 0 writes the checkpoint there and every rank exits 3; the
// group then starts again at another size and goes on from that step with
// the same global batch cut into as many slices as there are ranks. 4 ranks,
// then 2, then 4 again train what 4 ranks train without a stop: the epochs'
// losses agree within 1e-4 of their value (measured: 4e-9; only the order of
// the gradient sums differs), their test accuracies within 0.5% (2 of 400
// samples), and the final models' weights within 1e-4.
#include <signal.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using testing::Background;
using testing::RunResult;

// 512 samples in global batches of 64: 8 steps an epoch, 32 in all.
const std::vector<std::string> kTraining = {"--epochs", "4", "--batch", "64", "--seed", "3",
                                            "--limit-train", "512", "--limit-test", "400",
                                            "--device", "cpu"};

std::vector<std::string> Ranks(int ranks, const std::string& status_file = "") {
  std::vector<std::string> argv = {testing::BinPath("dlp-run"), "-np", std::to_string(ranks)};
  if (!status_file.empty()) argv.insert(argv.end(), {"--status-file", status_file});
  argv.insert(argv.end(), {"--", testing::BinPath("fmnist-train")});
  argv.insert(argv.end(), kTraining.begin(), kTraining.end());
  return argv;
}

// The job's output folder holds the checkpoint and, at the end, model.ckpt.
// `slow`: rank 0 sleeps 100 ms a step, so that a stop lands before the end.
testing::RunOptions InFolder(const std::string& output, bool slow) {
  testing::RunOptions options;
  options.env = {{"DLP_OUTPUT_DIR", output}};
  if (slow) options.env.insert({{"DLP_TEST_SLOW_RANK", "0"}, {"DLP_TEST_SLOW_MS", "100"}});
  options.timeout = absl::Seconds(60);
  return options;
}

// Rank 0's epoch lines: dlp-run prefixes every line with "[rank] ".
std::vector<nlohmann::json> Rank0Epochs(const std::string& out) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    if (!absl::ConsumePrefix(&line, "[0] {")) continue;
    nlohmann::json j = nlohmann::json::parse(absl::StrCat("{", line), nullptr, false);
    EXPECT_TRUE(j.is_object()) << line;
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// The step in rank 0's note "... at step N, ..." after `prefix`; -1 without one.
long StepAfter(const std::string& out, const std::string& prefix) {
  const size_t at = out.find(prefix);
  if (at == std::string::npos) return -1;
  const size_t step = out.find(" at step ", at);
  long n = -1;
  if (step == std::string::npos) return -1;
  const std::string digits = out.substr(step + 9, out.find(',', step) - step - 9);
  return absl::SimpleAtoi(digits, &n) ? n : -1;
}

// Every rank's exit code in dlp-run's status file (-1: killed by a signal).
std::vector<int> ExitCodes(const std::string& status_file) {
  const nlohmann::json status =
      nlohmann::json::parse(testing::ReadFileOrEmpty(status_file), nullptr, false);
  std::vector<int> codes;
  if (!status.is_object() || !status.contains("replicas")) return codes;
  for (const nlohmann::json& replica : status["replicas"]) {
    const auto code = replica.find("exitCode");  // null for a rank killed by a signal
    codes.push_back(code != replica.end() && code->is_number_integer() ? code->get<int>() : -1);
  }
  return codes;
}

// Starts `ranks` ranks that go on from `output`'s checkpoint, waits until some
// rank reported the loss of step `step` (DLP_METRIC, every 10 steps), sends
// dlp-run SIGUSR1 and returns what the group did; every rank exited 3.
RunResult StopAfter(int ranks, const std::string& output, int step) {
  const std::string status_file = absl::StrCat(output, "-status-", ranks, ".json");
  Background group(Ranks(ranks, status_file), InFolder(output, true));
  const std::string reported = absl::StrCat(" step=", step, "\n");
  const bool reached = testing::Eventually(
      [&] { return absl::StrContains(group.OutputSoFar(), reported); }, absl::Seconds(60));
  EXPECT_TRUE(reached) << group.OutputSoFar();
  group.Signal(SIGUSR1);
  RunResult result = group.Wait(absl::Seconds(60));
  EXPECT_THAT(ExitCodes(status_file), ::testing::Each(3)) << result.out << result.err;
  EXPECT_THAT(ExitCodes(status_file), SizeIs(ranks));
  return result;
}

// Where `steps` steps of 8 an epoch leave a run: "12, 256 samples into epoch
// 2" (the last step of an epoch leaves all 512 samples of it trained).
std::string Position(long steps) {
  return absl::StrCat(steps, ", ", ((steps - 1) % 8 + 1) * 64, " samples into epoch ",
                      (steps - 1) / 8 + 1);
}

// The floats of a checkpoint's payload (trainer/checkpoint/checkpoint.cc:
// two text lines, then parameters and momentum).
std::vector<float> Weights(const std::string& path) {
  const std::string file = testing::ReadFileOrEmpty(path);
  const size_t header_end = file.find('\n', file.find('\n') + 1);
  if (header_end == std::string::npos) return {};
  std::vector<float> weights((file.size() - header_end - 1) / sizeof(float));
  std::memcpy(weights.data(), file.data() + header_end + 1, weights.size() * sizeof(float));
  return weights;
}

TEST(FmnistElasticTest, FourThenTwoThenFourRanksTrainWhatFourRanksTrain) {
  testing::TempDir dir;
  const RunResult rigid = testing::Run(Ranks(4), InFolder(dir.Join("rigid"), false));
  ASSERT_EQ(rigid.exit_code, 0) << rigid.out << rigid.err;
  const std::vector<nlohmann::json> expected = Rank0Epochs(rigid.out);
  ASSERT_THAT(expected, SizeIs(4)) << rigid.out;

  const std::string output = dir.Join("elastic");
  // 4 ranks stop after step 10 or a little later (epoch 2).
  const RunResult four = StopAfter(4, output, 10);
  EXPECT_EQ(four.exit_code, 128 + SIGUSR1) << four.out << four.err;
  const std::string stopped = "asked to stop (SIGUSR1): wrote " + output + "/checkpoint/";
  const long first_stop = StepAfter(four.out + four.err, stopped);
  ASSERT_GE(first_stop, 10) << four.out << four.err;

  // 2 ranks go on from that step with 2 slices of each batch, and stop again.
  const RunResult two = StopAfter(2, output, 20);
  EXPECT_EQ(two.exit_code, 128 + SIGUSR1) << two.out << two.err;
  EXPECT_THAT(two.out + two.err,
              HasSubstr(absl::StrCat("at step ", Position(first_stop),
                                     ", with 2 rank(s) and the global batch of 64")));
  const long second_stop = StepAfter(two.out + two.err, stopped);
  ASSERT_GE(second_stop, 20) << two.out << two.err;

  // 4 ranks again, to the end.
  const RunResult again = testing::Run(Ranks(4), InFolder(output, false));
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out + again.err,
              HasSubstr(absl::StrCat("at step ", Position(second_stop), ", with 4 rank(s)")));

  // Each epoch reported once, by the group that ended it, as the rigid run did.
  std::vector<nlohmann::json> epochs = Rank0Epochs(four.out);
  for (const RunResult* r : {&two, &again}) {
    for (nlohmann::json& line : Rank0Epochs(r->out)) epochs.push_back(std::move(line));
  }
  ASSERT_THAT(epochs, SizeIs(4)) << four.out << two.out << again.out;
  for (size_t e = 0; e < epochs.size(); ++e) {
    SCOPED_TRACE(absl::StrCat("epoch ", e + 1));
    EXPECT_EQ(epochs[e]["epoch"], e + 1);
    const double loss = expected[e]["loss"].get<double>();
    EXPECT_NEAR(epochs[e]["loss"].get<double>(), loss, 1e-4 * loss);
    EXPECT_NEAR(epochs[e]["test_accuracy"].get<double>(),
                expected[e]["test_accuracy"].get<double>(), 0.005);
  }
  const std::vector<float> a = Weights(dir.Join("rigid/model.ckpt"));
  const std::vector<float> b = Weights(output + "/model.ckpt");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double{a[i]} - b[i]));
  EXPECT_LT(worst, 1e-4);
}

}  // namespace
}  // namespace dlp
