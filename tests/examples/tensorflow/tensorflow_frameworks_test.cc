// examples/tensorflow/ with tensorflow-cpu from PyPI under a real dlpd: the
// ports dlp puts in TF_CONFIG are bound by TensorFlow's own gRPC servers, the
// workers of MultiWorkerMirroredStrategy all-reduce, and ParameterServerStrategy's
// chief trains on the parameter server's variables and ends the job.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "examples/frameworks_harness.h"

namespace dlp::testing {
namespace {

using ::testing::Each;
using ::testing::HasSubstr;
using ::testing::SizeIs;

TEST(TensorflowExample, MultiWorkerMirroredWorkersAllReduceAndEndAlike) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  FrameworksDlpd dlpd(venv);
  RunResult outcome;
  const std::string id = dlpd.SubmitAndWait("tensorflow/mwms.yaml", {}, &outcome);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err << dlpd.Logs(id);
  const auto results = dlpd.JobResults(id);
  ASSERT_THAT(results, SizeIs(3)) << dlpd.Logs(id);
  const double checksum = results.at("worker-0")["checksum"].get<double>();
  for (const auto& [replica, result] : results) {
    SCOPED_TRACE(replica);
    EXPECT_EQ(result["task"]["type"], "worker");
    EXPECT_EQ(replica, "worker-" + std::to_string(result["task"]["index"].get<int>()));
    EXPECT_EQ(result["workers"], 3);
    EXPECT_EQ(result["all_reduced"], 6.0);  // 1 + 2 + 3, seen by each worker
    const auto losses = result["losses"].get<std::vector<double>>();
    ASSERT_THAT(losses, SizeIs(2));
    EXPECT_LT(losses[1], losses[0]);
    // Synchronous training: every worker ends with the same weights.
    EXPECT_DOUBLE_EQ(result["checksum"].get<double>(), checksum);
  }
}

TEST(TensorflowExample, ParameterServerChiefTrainsOnThePsVariablesAndEndsTheJob) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  // The servers never exit: only spec.successPolicy ({roles: [chief]}) ends the job.
  FrameworksDlpd dlpd(venv);
  RunResult outcome;
  const std::string id = dlpd.SubmitAndWait("tensorflow/ps.yaml", {}, &outcome);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err << dlpd.Logs(id);
  EXPECT_EQ(dlpd.cli().State(id), "Succeeded");
  const auto results = dlpd.JobResults(id);
  ASSERT_EQ(results.count("chief-0"), 1u) << dlpd.Logs(id);
  const nlohmann::json& chief = results.at("chief-0");
  // Every step the chief scheduled on the 2 workers updated the variables on
  // the parameter server.
  EXPECT_EQ(chief["steps"], 60);
  EXPECT_EQ(chief["workers"], 2);
  EXPECT_THAT(chief["devices"].get<std::vector<std::string>>(),
              Each(HasSubstr("/job:ps/replica:0/task:0")));
  EXPECT_THAT(chief["losses"], SizeIs(3));  // one per checkpoint
  // The evaluator restored the last checkpoint, with the ps's step count, and
  // scored it well above chance (0.1).
  ASSERT_TRUE(chief["evaluated"].is_object()) << dlpd.Logs(id);
  EXPECT_EQ(chief["evaluated"]["checkpoint"], "ckpt-60");
  EXPECT_EQ(chief["evaluated"]["steps"], 60);
  EXPECT_GT(chief["evaluated"]["accuracy"].get<double>(), 0.3);
  // The parameter server and workers served until they were stopped.
  EXPECT_THAT(dlpd.Logs(id), HasSubstr("[ps-0] ps 0 serving"));
  EXPECT_THAT(dlpd.Logs(id), HasSubstr("[worker-1] worker 1 serving"));
}

}  // namespace
}  // namespace dlp::testing
