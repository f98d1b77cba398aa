// End-to-end tests of fmnist-train with one rank: the real binary on subsets
// of the real dataset (Debian's dataset-fashion-mnist).
#include <sys/stat.h>

#include <string>
#include <vector>

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
using testing::RunResult;
using testing::TempDir;

std::vector<std::string> Train(std::vector<std::string> args) {
  args.insert(args.begin(), testing::BinPath("fmnist-train"));
  return args;
}

// Parses the JSON object lines of stdout (other lines, such as DLP_METRIC
// reports, are skipped) and checks the documented keys.
std::vector<nlohmann::json> EpochLines(const RunResult& r) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    if (line.front() != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << "not a JSON object: " << line;
    if (!j.is_object()) continue;
    for (const char* key : {"epoch", "loss", "test_accuracy", "seconds", "samples_per_second"}) {
      EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key << " missing in " << line;
    }
    lines.push_back(std::move(j));
  }
  return lines;
}

const std::vector<std::string> kSubset = {"--limit-train", "2000", "--limit-test", "500",
                                          "--device", "cpu"};

std::vector<std::string> With(std::vector<std::string> args) {
  args.insert(args.end(), kSubset.begin(), kSubset.end());
  return Train(args);
}

TEST(FmnistTrainTest, QuickRunLowersLossAndPrintsOneJsonLinePerEpoch) {
  const RunResult r = testing::Run(With({"--epochs", "3", "--batch", "32"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = EpochLines(r);
  ASSERT_THAT(lines, SizeIs(3)) << r.out;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(lines[i]["epoch"], i + 1);
  EXPECT_LT(lines[2]["loss"].get<double>(), lines[0]["loss"].get<double>());
  EXPECT_LT(lines[0]["loss"].get<double>(), 2.3);  // below chance (ln 10) after one epoch
  EXPECT_GT(lines[2]["test_accuracy"].get<double>(), 0.7);
  EXPECT_GT(lines[2]["samples_per_second"].get<double>(), 0);
}

TEST(FmnistTrainTest, SameSeedSameRunDifferentSeedDifferentRun) {
  const RunResult a = testing::Run(With({"--epochs", "1", "--seed", "7"}));
  const RunResult b = testing::Run(With({"--epochs", "1", "--seed", "7"}));
  const RunResult c = testing::Run(With({"--epochs", "1", "--seed", "8"}));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(EpochLines(a)[0]["loss"], EpochLines(b)[0]["loss"]);
  EXPECT_NE(EpochLines(a)[0]["loss"], EpochLines(c)[0]["loss"]);
}

TEST(FmnistTrainTest, CnnTrains) {
  const RunResult r = testing::Run(Train({"--model", "cnn", "--epochs", "2", "--limit-train", "1000",
                                 "--limit-test", "200", "--device", "cpu"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = EpochLines(r);
  ASSERT_THAT(lines, SizeIs(2)) << r.out;
  EXPECT_LT(lines[1]["loss"].get<double>(), lines[0]["loss"].get<double>());
  EXPECT_GT(lines[1]["test_accuracy"].get<double>(), 0.5);
}

TEST(FmnistTrainTest, CosineScheduleTrainsOnItsOwnCurve) {
  const RunResult cosine = testing::Run(With({"--epochs", "2", "--lr-schedule", "cosine"}));
  const RunResult constant = testing::Run(With({"--epochs", "2"}));
  ASSERT_EQ(cosine.exit_code, 0) << cosine.err;
  ASSERT_EQ(constant.exit_code, 0) << constant.err;
  const auto lines = EpochLines(cosine);
  ASSERT_THAT(lines, SizeIs(2)) << cosine.out;
  EXPECT_LT(lines[1]["loss"].get<double>(), lines[0]["loss"].get<double>());
  EXPECT_GT(lines[1]["test_accuracy"].get<double>(), 0.7);
  // The rate falls from the first step on, so the first epoch already differs.
  EXPECT_NE(lines[0]["loss"], EpochLines(constant)[0]["loss"]);

  const RunResult bad = testing::Run(Train({"--lr-schedule", "step"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--lr-schedule"));
}

TEST(FmnistTrainTest, MissingDataNamesTheFileAndThePackage) {
  TempDir dir;
  const RunResult r = testing::Run(Train({"--data", dir.Join("nothing-here")}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(EpochLines(r), SizeIs(0));
  EXPECT_THAT(r.err, HasSubstr("train-images-idx3-ubyte.gz"));
  EXPECT_THAT(r.err, HasSubstr("dataset-fashion-mnist"));
}

TEST(FmnistTrainTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(testing::Run(Train({"--model", "transformer"})).exit_code, 2);
  EXPECT_EQ(testing::Run(Train({"--epochs", "many"})).exit_code, 2);
  const RunResult r = testing::Run(Train({"--batch", "0"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--batch"));
  // A batch no machine could hold is refused before anything is allocated.
  const RunResult huge = testing::Run(Train({"--batch", "1000000000"}));
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_THAT(huge.err, HasSubstr("--batch must be from 1 to 65536"));
  EXPECT_EQ(testing::Run(Train({"--shard-optimizer", "maybe"})).exit_code, 2);
  const RunResult both = testing::Run(Train({"--shard-optimizer", "on", "--overlap"}));
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--shard-optimizer on and --overlap exclude each other"));
  EXPECT_EQ(testing::Run(Train({"--shared-model", "maybe"})).exit_code, 2);
  const RunResult unsharded =
      testing::Run(Train({"--shared-model", "on", "--shard-optimizer", "off"}));
  EXPECT_EQ(unsharded.exit_code, 2);
  EXPECT_THAT(unsharded.err, HasSubstr("--shared-model on needs the sharded optimizer"));
  const RunResult help = testing::Run(Train({"--help"}));
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--checkpoint"));
}

TEST(FmnistTrainTest, ResumesFromTheCheckpointExactly) {
  TempDir dir;
  const std::string ckpt = dir.Join("ckpt");
  const RunResult first = testing::Run(With({"--epochs", "1", "--checkpoint", ckpt}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_THAT(EpochLines(first), SizeIs(1));
  EXPECT_FALSE(testing::ReadFileOrEmpty(ckpt + "/checkpoint.bin").empty());

  const RunResult resumed = testing::Run(With({"--epochs", "2", "--checkpoint", ckpt}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("after epoch 1"));
  const auto lines = EpochLines(resumed);
  ASSERT_THAT(lines, SizeIs(1)) << resumed.out;
  EXPECT_EQ(lines[0]["epoch"], 2);

  // Parameters, momentum and shuffle state all survive: epoch 2 matches an
  // uninterrupted run to the bit.
  const RunResult straight = testing::Run(With({"--epochs", "2"}));
  ASSERT_EQ(straight.exit_code, 0) << straight.err;
  const auto straight_lines = EpochLines(straight);
  ASSERT_THAT(straight_lines, SizeIs(2));
  EXPECT_EQ(lines[0]["loss"], straight_lines[1]["loss"]);
  EXPECT_EQ(lines[0]["test_accuracy"], straight_lines[1]["test_accuracy"]);

  // Nothing left to do: no epoch runs again.
  const RunResult done = testing::Run(With({"--epochs", "2", "--checkpoint", ckpt}));
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_THAT(EpochLines(done), SizeIs(0));
}

// A checkpoint records its model and its global batch: a stop mid-epoch goes
// on only with the batches the epoch was cut into, whatever the number of ranks.
TEST(FmnistTrainTest, RefusesACheckpointOfAnotherModelOrGlobalBatch) {
  TempDir dir;
  const std::string ckpt = dir.Join("ckpt");
  ASSERT_EQ(testing::Run(With({"--epochs", "1", "--checkpoint", ckpt})).exit_code, 0);
  const RunResult model =
      testing::Run(With({"--epochs", "2", "--model", "cnn", "--checkpoint", ckpt}));
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_THAT(model.err, HasSubstr("mlp"));
  const RunResult batch =
      testing::Run(With({"--epochs", "2", "--batch", "32", "--checkpoint", ckpt}));
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_THAT(batch.err,
              HasSubstr("was trained with a global batch of 64; this run asks for --batch 32"));
}

// Under dlp the checkpoint is the job's own ($DLP_OUTPUT_DIR/checkpoint): the
// same spec submitted again trains afresh, a restarted group (same output
// folder) resumes.
TEST(FmnistTrainTest, AJobsCheckpointIsInItsOwnOutputFolder) {
  TempDir dir;
  auto as_job = [&](const std::string& output, const std::string& epochs) {
    testing::RunOptions options;
    options.env = {{"DLP_OUTPUT_DIR", dir.Join(output)}};
    options.cwd = dir.path();
    return testing::Run(With({"--epochs", epochs}), options);
  };
  for (const char* output : {"job1", "job2"}) mkdir(dir.Join(output).c_str(), 0700);
  ASSERT_EQ(as_job("job1", "1").exit_code, 0);
  const RunResult second_job = as_job("job2", "1");
  ASSERT_EQ(second_job.exit_code, 0) << second_job.err;
  EXPECT_THAT(EpochLines(second_job), SizeIs(1)) << "the second job did not train";
  const RunResult restarted = as_job("job1", "2");
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  const auto lines = EpochLines(restarted);
  ASSERT_THAT(lines, SizeIs(1)) << restarted.out;  // epoch 1 came from the checkpoint
  EXPECT_EQ(lines[0]["epoch"], 2);
}

TEST(FmnistTrainTest, CorruptCheckpointIsReportedNotUsed) {
  TempDir dir;
  dir.WriteFile("ckpt/checkpoint.bin", "fmnist-checkpoint 1\n{\"model\":\"mlp\"}\n");
  const RunResult r = testing::Run(With({"--epochs", "1", "--checkpoint", dir.Join("ckpt")}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("checkpoint.bin"));
}

}  // namespace
}  // namespace dlp
