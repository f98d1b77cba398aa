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

TEST(JaxExample, ProcessesGatherAndTrainAsOne) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  // One process under dlp-run: the reference.
  const RunResult one = DlpRunExample(venv, "jax", {"-np", "1", "--framework", "jax"},
                                      {"train.py", "--steps", "8"});
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  const auto alone = Results(one.out);
  ASSERT_THAT(alone, SizeIs(1)) << one.out;

  // The example's job spec, with 3 processes, under dlpd.
  FrameworksDlpd dlpd(venv);
  RunResult outcome;
  const std::string id =
      dlpd.SubmitAndWait("jax/job.yaml",
                         {"spec.replicas.worker.count=3",
                          "spec.replicas.worker.command=[python3, train.py, --steps, 8]"},
                         &outcome);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err << dlpd.Logs(id);
  const auto results = dlpd.JobResults(id);
  ASSERT_THAT(results, SizeIs(3)) << dlpd.Logs(id);
  const nlohmann::json& reference = alone.at("0");
  for (const auto& [replica, result] : results) {
    SCOPED_TRACE(replica);
    EXPECT_EQ("worker-" + std::to_string(result["rank"].get<int>()), replica);
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
