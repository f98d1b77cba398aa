// examples/pytorch/ with torch 2 from PyPI: a torchrun script (DDP over gloo)
// run unchanged by dlp-run and by a real dlpd, torchrun's environment, and a
// restart that resumes from the checkpoint to the loss of an uninterrupted run.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "examples/frameworks_harness.h"

namespace dlp::testing {
namespace {

using ::testing::SizeIs;

constexpr int kSteps = 30;

TEST(PytorchExample, DdpRestartedFromItsCheckpointEndsWithTheUninterruptedLoss) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  // Uninterrupted, under dlp-run as under torchrun.
  const RunResult straight =
      DlpRunExample(venv, "pytorch", {"-np", "2"},
                    {"ddp_train.py", "--steps", std::to_string(kSteps), "--checkpoint-dir", ""});
  ASSERT_EQ(straight.exit_code, 0) << straight.out << straight.err;
  const auto reference = Results(straight.out);
  ASSERT_THAT(reference, SizeIs(2)) << straight.out;

  // The job spec under dlpd: the last worker fails at step 25 of the first
  // attempt, after the checkpoint of step 20; the group restarts and resumes.
  FrameworksDlpd dlpd(venv);
  RunResult outcome;
  const std::string id = dlpd.SubmitAndWait(
      "pytorch/job.yaml",
      {"spec.replicas.worker.command=[python3, ddp_train.py, --steps, " + std::to_string(kSteps) +
       ", --fail-at-step, 25]"},
      &outcome);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err << dlpd.Logs(id);
  EXPECT_EQ(dlpd.cli().Status(id)["restartCount"], 1);
  const auto resumed = dlpd.JobResults(id);
  ASSERT_THAT(resumed, SizeIs(2)) << dlpd.Logs(id);

  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const nlohmann::json& before = reference.at(std::to_string(rank));
    const nlohmann::json& after = resumed.at("worker-" + std::to_string(rank));
    EXPECT_EQ(before["rank"], rank);
    EXPECT_EQ(before["world"], 2);
    // Each rank all-reduced rank + 1: 1 + 2.
    EXPECT_EQ(before["all_reduced"], 3.0);
    EXPECT_EQ(after["all_reduced"], 3.0);
    EXPECT_EQ(before["resumed_from"], 0);
    EXPECT_EQ(after["resumed_from"], 20);
    // The same model and loss as without the failure.
    EXPECT_NEAR(after["loss"].get<double>(), before["loss"].get<double>(), 1e-6);
    EXPECT_NEAR(after["checksum"].get<double>(), before["checksum"].get<double>(), 1e-6);
    EXPECT_THAT(after["torch"].get<std::string>(), ::testing::StartsWith("2."));

    // torchrun's environment, as dlp-run set it.
    const nlohmann::json& env = after["env"];
    EXPECT_EQ(env["LOCAL_RANK"], std::to_string(rank));
    EXPECT_EQ(env["LOCAL_WORLD_SIZE"], "2");
    EXPECT_EQ(env["GROUP_RANK"], "0");
    EXPECT_EQ(env["TORCHELASTIC_RESTART_COUNT"], "1");
    EXPECT_EQ(env["TORCHELASTIC_MAX_RESTARTS"], "2");
    EXPECT_EQ(env["TORCHELASTIC_RUN_ID"], id);
    EXPECT_EQ(before["env"]["TORCHELASTIC_RESTART_COUNT"], "0");
    EXPECT_EQ(before["env"]["TORCHELASTIC_RUN_ID"], "none");
  }
}

}  // namespace
}  // namespace dlp::testing
