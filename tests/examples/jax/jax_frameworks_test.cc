// examples/jax/ with jax from PyPI: jax.distributed.initialize() from the
// JAX_* variables dlp sets, a cross-process all-gather, and data-parallel
// training whose losses are those of one process.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "examples/frameworks_harness.h"

namespace dlp::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

RunResult TrainWithProcesses(const std::string& venv, int processes) {
  return Run({BinPath("dlp-run"), "-np", std::to_string(processes), "--framework", "jax", "--",
              venv + "/bin/python3", "train.py", "--steps", "8"},
             {.cwd = ExampleDir("jax"), .timeout = absl::Seconds(240)});
}

TEST(JaxExample, ProcessesGatherAndTrainAsOne) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  const RunResult one = TrainWithProcesses(venv, 1);
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  const RunResult three = TrainWithProcesses(venv, 3);
  ASSERT_EQ(three.exit_code, 0) << three.out << three.err;

  const auto alone = Results(one.out);
  const auto results = Results(three.out);
  ASSERT_THAT(alone, SizeIs(1)) << one.out;
  ASSERT_THAT(results, SizeIs(3)) << three.out;
  const nlohmann::json& reference = alone.at("0");
  for (const auto& [rank, result] : results) {
    SCOPED_TRACE("rank " + rank);
    EXPECT_EQ(result["rank"].get<int>(), std::stoi(rank));
    EXPECT_EQ(result["world"], 3);
    // Every process saw every process's number, in process order.
    EXPECT_THAT(result["gathered"].get<std::vector<double>>(), ElementsAre(1.0, 2.0, 3.0));
    // The gradients of the three thirds of each batch were all-reduced: the
    // losses and weights of one process training on the whole batch.
    const auto losses = result["losses"].get<std::vector<double>>();
    const auto expected = reference["losses"].get<std::vector<double>>();
    ASSERT_THAT(losses, SizeIs(8));
    for (size_t s = 0; s < losses.size(); ++s) {
      EXPECT_NEAR(losses[s], expected[s], 1e-4 * expected[s]) << "step " << s;
    }
    EXPECT_LT(losses.back(), losses.front());
    EXPECT_NEAR(result["checksum"].get<double>(), reference["checksum"].get<double>(), 1e-3);
  }
}

}  // namespace
}  // namespace dlp::testing
