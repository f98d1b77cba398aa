// examples/tensorflow/mwms.yaml on the Slurm backend: srun starts one dlp-run
// per task, each gives its worker TF_CONFIG with ports from the rendezvous
// port, and TensorFlow's own servers bind them. Needs the Slurm test cluster
// (scripts/services.sh start slurm) and the frameworks; skips without either.
#include "e2e/slurm/slurm_harness.h"
#include "examples/frameworks_harness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dlp::testing {
namespace {

TEST(TensorflowSlurmExample, MultiWorkerMirroredWorkersAllReduceUnderSrun) {
  DLP_REQUIRE_FRAMEWORKS(venv);
  SlurmEnv env("cli");
  DLP_SKIP_WITHOUT_SLURM(env);
  RunResult r = env.Dlp({"submit", ExampleDir("tensorflow/mwms.yaml"), "--wait", "-q", "--set",
                         "spec.env.PATH=" + VenvPath(venv), "--set",
                         "spec.replicas.worker.count=2", "--set",
                         "spec.replicas.worker.resources.cpu=1"},
                        absl::Seconds(400));
  const std::string id = SlurmEnv::IdFrom(r);
  const RunResult logs = env.Dlp({"logs", id});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << logs.out;
  const auto results = Results(logs.out);
  ASSERT_EQ(results.size(), 2u) << logs.out;
  for (const auto& [replica, result] : results) {
    SCOPED_TRACE(replica);
    EXPECT_EQ(result["workers"], 2);
    EXPECT_EQ(result["all_reduced"], 3.0);  // 1 + 2, seen by each worker
    EXPECT_DOUBLE_EQ(result["checksum"].get<double>(),
                     results.begin()->second["checksum"].get<double>());
  }
}

}  // namespace
}  // namespace dlp::testing
