// fmnist-train across ranks started by the real dlp-run: the same global batch
// and seed give the same loss curve for 1 and 4 ranks (up to float rounding,
// since only the order of the gradient sums changes).
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
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
using ::testing::Not;
using ::testing::SizeIs;
using testing::RunResult;

// Rank 0's epoch lines: dlp-run prefixes every line with "[rank] ".
std::vector<nlohmann::json> Rank0Epochs(const RunResult& r) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    if (!absl::ConsumePrefix(&line, "[0] {")) continue;
    const std::string text = absl::StrCat("{", line);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << "not JSON: " << text;
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// Both runs trained their two epochs, and their losses and accuracies agree up
// to float rounding (the order of the gradient sums).
void ExpectTheSameCurve(const RunResult& x, const RunResult& y) {
  ASSERT_EQ(x.exit_code, 0) << x.out << x.err;
  ASSERT_EQ(y.exit_code, 0) << y.out << y.err;
  const auto a = Rank0Epochs(x);
  const auto b = Rank0Epochs(y);
  ASSERT_THAT(a, SizeIs(2)) << x.out;
  ASSERT_THAT(b, SizeIs(2)) << y.out;
  for (size_t e = 0; e < a.size(); ++e) {
    const double la = a[e]["loss"].get<double>(), lb = b[e]["loss"].get<double>();
    EXPECT_NEAR(la, lb, 1e-3 * la) << "epoch " << e + 1;
    EXPECT_NEAR(a[e]["test_accuracy"].get<double>(), b[e]["test_accuracy"].get<double>(), 0.01)
        << "epoch " << e + 1;
  }
}

RunResult TrainWithRanks(int ranks, const std::vector<std::string>& extra = {},
                         const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {testing::BinPath("dlp-run"), "-np", std::to_string(ranks),
                                   "--", testing::BinPath("fmnist-train"), "--epochs", "2",
                                   "--batch", "64", "--seed", "3", "--limit-train", "1024",
                                   "--limit-test", "400", "--device", "cpu"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return testing::Run(argv, {.env = env, .timeout = absl::Seconds(60)});
}

TEST(FmnistMultiRankTest, OneAndFourRanksGiveTheSameLossCurve) {
  const RunResult one = TrainWithRanks(1);
  const RunResult four = TrainWithRanks(4);
  ExpectTheSameCurve(one, four);
  // Only rank 0 reports.
  EXPECT_THAT(four.out, Not(HasSubstr("[1] {")));
}

// Buckets as small as 4 KiB split the MLP's gradient into dozens of
// allreduces on the trainer's bucket thread: the same sums as one allreduce.
TEST(FmnistMultiRankTest, BucketsBesideBackwardGiveTheLossCurveOfOneAllreduce) {
  ExpectTheSameCurve(TrainWithRanks(3, {"--no-overlap", "--shard-optimizer", "off"}),
                     TrainWithRanks(3, {"--overlap", "--bucket-kb", "4"}));
}

// By default every rank all-reduces the whole gradient, as a DDP program does:
// in buckets beside backward where each rank has a core to spare for its
// bucket thread, else once after backward. The sharded step over one model in
// shared memory (the weight gradient summed from the ranks' activations) is
// there when asked for.
TEST(FmnistMultiRankTest, TheDefaultStepAllReducesBesideBackwardWhereEachRankHasASpareCore) {
  const bool spare = std::thread::hardware_concurrency() >= 4;
  const RunResult chosen = TrainWithRanks(2, {"--epochs", "1"});
  const RunResult on = TrainWithRanks(2, {"--epochs", "1", "--overlap"});
  const RunResult off = TrainWithRanks(2, {"--epochs", "1", "--no-overlap"});
  const RunResult shared =
      TrainWithRanks(2, {"--epochs", "1", "--no-overlap", "--shared-model", "auto"});
  for (const RunResult* r : {&chosen, &on, &off, &shared}) {
    ASSERT_EQ(r->exit_code, 0) << r->out << r->err;
  }
  const std::string beside =
      "2 rank(s), 1024 samples read once on this host, gradients all-reduced beside backward";
  const std::string sharded =
      "2 rank(s), 1024 samples read once on this host, weight gradients summed from every rank's "
      "activations in shared memory after backward, each rank updating its rows of one shared "
      "model";
  const std::string after =
      "2 rank(s), 1024 samples read once on this host, gradients all-reduced after backward";
  EXPECT_THAT(chosen.err + chosen.out, HasSubstr(spare ? beside : after));
  EXPECT_THAT(on.err + on.out, HasSubstr(beside));
  EXPECT_THAT(off.err + off.out, HasSubstr(after));
  EXPECT_THAT(shared.err + shared.out, HasSubstr(sharded));
}

// Sharded, each rank updates a third of the model from its share of the
// summed gradient, through collectives (a copy of the model each) or in one
// model in shared memory (the MLP's weight gradients summed from the ranks'
// activations): the loss curve of the all-reduced step either way, and a
// checkpoint (every rank's share of the velocity) from which the all-reduced
// run resumes alike.
TEST(FmnistMultiRankTest, AShardedOptimizerGivesTheLossCurveOfAnAllreduce) {
  const RunResult all_reduced = TrainWithRanks(3, {"--no-overlap", "--shard-optimizer", "off"});
  for (const char* shared : {"off", "on"}) {
    SCOPED_TRACE(absl::StrCat("--shared-model ", shared));
    testing::TempDir dir;
    const std::string ckpt = dir.Join("ckpt");
    const RunResult sharded =
        TrainWithRanks(3, {"--shard-optimizer", "on", "--shared-model", shared});
    ExpectTheSameCurve(all_reduced, sharded);
    EXPECT_THAT(sharded.out + sharded.err,
                HasSubstr(std::string(shared) == "on"
                              ? "summed from every rank's activations in shared memory"
                              : "reduce-scattered"));
    const RunResult first = TrainWithRanks(3, {"--shard-optimizer", "on", "--shared-model", shared,
                                               "--epochs", "1", "--checkpoint", ckpt});
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    const RunResult resumed =
        TrainWithRanks(3, {"--no-overlap", "--shard-optimizer", "off", "--checkpoint", ckpt});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
    const auto b = Rank0Epochs(sharded);
    ASSERT_THAT(b, SizeIs(2)) << sharded.out;
    const auto c = Rank0Epochs(resumed);
    ASSERT_THAT(c, SizeIs(1)) << resumed.out;
    EXPECT_NEAR(c[0]["loss"].get<double>(), b[1]["loss"].get<double>(),
                1e-3 * b[1]["loss"].get<double>());
  }
}

// A global batch of 2 leaves one of 3 ranks without samples in every step:
// it publishes no activations but still sums and updates its rows of the
// shared model, and the run learns what one rank learns.
TEST(FmnistMultiRankTest, ARankWithoutSamplesStillUpdatesItsRows) {
  const std::vector<std::string> tiny = {"--batch",       "2",   "--lr",        "0.005",
                                         "--limit-train", "256", "--no-overlap"};
  std::vector<std::string> shared = tiny;
  shared.insert(shared.end(), {"--shared-model", "on"});
  const RunResult three = TrainWithRanks(3, shared);
  EXPECT_THAT(three.out + three.err, HasSubstr("summed from every rank's activations"));
  ExpectTheSameCurve(TrainWithRanks(1, tiny), three);
}

// A model with convolutions shares its gradients rather than its activations
// (a convolution's windows outweigh its weights): each rank sums its share of
// every rank's gradient in one model in shared memory, with the loss curve of
// the all-reduced step.
TEST(FmnistMultiRankTest, AConvolutionalModelSumsItsGradientsInSharedMemory) {
  const std::vector<std::string> cnn = {"--model", "cnn", "--limit-train", "512", "--no-overlap"};
  std::vector<std::string> shared = cnn, all_reduced = cnn;
  shared.insert(shared.end(), {"--shared-model", "on"});
  all_reduced.insert(all_reduced.end(), {"--shard-optimizer", "off"});
  const RunResult summed = TrainWithRanks(3, shared);
  ExpectTheSameCurve(TrainWithRanks(3, all_reduced), summed);
  EXPECT_THAT(summed.out + summed.err,
              HasSubstr("gradients summed in shared memory after backward, each rank updating its "
                        "share of one shared model"));
}

// Ranks that the communicator finds on separate hosts (each its own host over
// TCP) cannot share memory: with `auto` the sharded step goes through
// collectives instead, and with `on` the shared model is a clear error.
TEST(FmnistMultiRankTest, ASharedModelNeedsEveryRankOnOneHost) {
  const std::map<std::string, std::string> apart = {{"DLP_COMM_TRANSPORT", "tcp"}};
  const RunResult chosen =
      TrainWithRanks(2, {"--epochs", "1", "--no-overlap", "--shared-model", "auto"}, apart);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.out << chosen.err;
  EXPECT_THAT(chosen.out + chosen.err, HasSubstr("gradients reduce-scattered after backward"));
  EXPECT_THAT(chosen.out + chosen.err, Not(HasSubstr("read once on this host")));
  const RunResult forced =
      TrainWithRanks(2, {"--epochs", "1", "--no-overlap", "--shared-model", "on"}, apart);
  EXPECT_NE(forced.exit_code, 0);
  EXPECT_THAT(forced.out + forced.err,
              HasSubstr("shared memory needs every rank on one host; these 2 ranks are on 2 "
                        "hosts"));
}

// The ranks on one host read the dataset once (rank 0, into shared memory),
// and learn the same as ranks that each read their own.
TEST(FmnistMultiRankTest, RanksOnOneHostReadTheDatasetOnce) {
  const RunResult together = TrainWithRanks(4, {"--epochs", "1", "--no-overlap"});
  ASSERT_EQ(together.exit_code, 0) << together.out << together.err;
  EXPECT_THAT(together.out + together.err, HasSubstr("1024 samples read once on this host"));
  const RunResult apart =
      TrainWithRanks(4, {"--epochs", "1", "--no-overlap"}, {{"DLP_COMM_TRANSPORT", "tcp"}});
  ASSERT_EQ(apart.exit_code, 0) << apart.out << apart.err;
  EXPECT_THAT(apart.out + apart.err, Not(HasSubstr("read once")));
  const auto a = Rank0Epochs(together), b = Rank0Epochs(apart);
  ASSERT_THAT(a, SizeIs(1));
  ASSERT_THAT(b, SizeIs(1));
  EXPECT_NEAR(a[0]["loss"].get<double>(), b[0]["loss"].get<double>(),
              1e-3 * a[0]["loss"].get<double>());
}

// Rank 0 names what it could not read and the run ends: the others fail
// with its error rather than wait for a dataset that never comes, so the
// message is there whichever rank dlp-run sees end first.
TEST(FmnistMultiRankTest, ADatasetRankZeroCannotReadEndsTheRun) {
  testing::TempDir dir;
  const RunResult r = TrainWithRanks(4, {"--data", dir.Join("nothing-here")});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("train-images-idx3-ubyte.gz"));
  EXPECT_THAT(r.out + r.err, HasSubstr("dataset-fashion-mnist"));
}

// Two "hosts" on loopback addresses: with two ranks on each, the allreduce is
// hierarchical and moves fewer bytes between hosts than a sharded step's flat
// ring, so `--shard-optimizer auto` keeps it; with one rank on each it shards.
TEST(FmnistMultiRankTest, SeveralRanksOnEachOfSeveralHostsKeepTheAllreduce) {
  auto note = [](const std::string& hosts) {
    const RunResult r =
        testing::Run({testing::BinPath("dlp-run"), "-H", hosts, "--",
                      testing::BinPath("fmnist-train"), "--epochs", "1", "--limit-train", "256",
                      "--limit-test", "100", "--device", "cpu", "--no-overlap",
                      "--shard-optimizer", "auto"},
                     {.timeout = absl::Seconds(60)});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return r.out + r.err;
  };
  EXPECT_THAT(note("127.0.0.1:2,127.0.0.2:2"), HasSubstr("gradients all-reduced after backward"));
  EXPECT_THAT(note("127.0.0.1:1,127.0.0.2:1"), HasSubstr("gradients reduce-scattered"));
}

TEST(FmnistMultiRankTest, FourRanksResumeFromRankZerosCheckpoint) {
  testing::TempDir dir;
  const std::string ckpt = dir.Join("ckpt");
  const RunResult first = TrainWithRanks(4, {"--checkpoint", ckpt, "--epochs", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const RunResult resumed = TrainWithRanks(4, {"--checkpoint", ckpt});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const auto lines = Rank0Epochs(resumed);
  ASSERT_THAT(lines, SizeIs(1)) << resumed.out;
  EXPECT_EQ(lines[0]["epoch"], 2);

  const auto straight = Rank0Epochs(TrainWithRanks(4));
  ASSERT_THAT(straight, SizeIs(2));
  EXPECT_NEAR(lines[0]["loss"].get<double>(), straight[1]["loss"].get<double>(), 1e-4);
}

}  // namespace
}  // namespace dlp
