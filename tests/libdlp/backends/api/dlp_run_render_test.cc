// `dlp render` on the local and remote backends prints what dlpd's executor
// runs: the same command line function and the same group codec.
#include "backends/api/dlp_run_render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/group.h"
#include "job/job_group.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JobSpec Spec(int gpus) {
  JobSpec spec;
  spec.name = "my job";
  spec.framework = Framework::kPyTorch;
  spec.replicas = {{"worker", 2, {"python", "train.py"}, {{"A", "b"}}, {1000, 0, gpus}}};
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 3, 5};
  return spec;
}

TEST(RenderDlpRun, IsTheExecutorsCommandAndGroupFile) {
  const std::string out = RenderDlpRun(Spec(0));
  const std::string line =
      contract::ExecutorDlpRunCommand("dlp-run", {"STATE/jobs/ID"}, "ID", "my job",
                                      absl::Seconds(10))
          .ShellLine();
  EXPECT_EQ(line,
            "DLP_JOB_ID=ID DLP_JOB_NAME='my job' DLP_OUTPUT_DIR=STATE/jobs/ID/output dlp-run "
            "--group STATE/jobs/ID/group.json "
            "--log-dir STATE/jobs/ID/logs --status-file STATE/jobs/ID/status.json "
            "--grace-period 10");
  EXPECT_THAT(out, HasSubstr("\n" + line + "\n# STATE/jobs/ID/group.json\n"));
  const std::string group = out.substr(out.find("{"));
  EXPECT_EQ(group, contract::GroupToJson(JobGroup(Spec(0))));
  auto parsed = contract::ParseGroupJson(group, "rendered");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->framework, contract::Framework::kPyTorch);
  EXPECT_EQ(parsed->max_restarts, 3);
  EXPECT_EQ(parsed->backoff, absl::Seconds(5));
  EXPECT_EQ(parsed->roles[0].env.at("A"), "b");
}

TEST(RenderDlpRun, GpusArePlacedAtStartIntoTheGroupFile) {
  const std::string out = RenderDlpRun(Spec(1));
  EXPECT_THAT(out, HasSubstr("# GPUs: dlpd places each replica at start"));
  EXPECT_THAT(out, Not(HasSubstr("CUDA_VISIBLE_DEVICES=")));
  EXPECT_THAT(out, Not(HasSubstr("--gpus")));
  EXPECT_THAT(out, HasSubstr("\"gpus\": 1"));
  EXPECT_THAT(RenderDlpRun(Spec(0)), Not(HasSubstr("# GPUs")));
}

}  // namespace
}  // namespace dlp::internal
