// Submissions as the Slurm backend builds them, without Slurm: sbatch options
// from the spec, the batch script (allocation + one srun of dlp-run on the
// group file), and the comment that leads a Slurm job back to its folder.
#include "backends/slurm/batch_script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JobSpec TwoRoles() {
  JobSpec spec;
  spec.name = "train";
  spec.labels = {{"team", "vision"}};
  ReplicaSpec chief{"chief", 1, {"python", "chief.py"}, {}, {2000, 0, 0}};
  ReplicaSpec worker{"worker",
                     3,
                     {"python", "train.py", "--msg", "a'b $(x)"},
                     {{"MODE", "fast; rm -rf /"}},
                     {1500, int64_t{4} << 30, 1000}};
  spec.replicas = {chief, worker};
  spec.active_deadline_seconds = 90;
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 2, 0};
  return spec;
}

SlurmJobLayout JobLayout() {
  SlurmJobLayout layout;
  layout.job_dir = "/shared/dlp/train-KEY";
  layout.dlp_run = "/opt/dlp/bin/dlp-run";
  layout.partition = "batch";
  layout.account = "proj";
  return layout;
}

TEST(BuildSubmission, ResourcesFromTheLargestRole) {
  auto s = BuildSubmission(TwoRoles(), JobLayout());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->tasks, 4);
  EXPECT_EQ(s->min_nodes, 1);
  EXPECT_EQ(s->max_nodes, 4);
  EXPECT_EQ(s->cpus_per_task, 2);
  EXPECT_EQ(s->mem_per_cpu_mb, 2048);  // 4 GiB over 2 CPUs
  EXPECT_EQ(s->gpus_per_task, 1);
  EXPECT_EQ(s->time_limit_minutes, 2);  // 90 s rounded up
  EXPECT_EQ(s->name, "train");
  EXPECT_EQ(s->comment, "dlp:train-KEY,team=vision");
  EXPECT_EQ(s->output, "/shared/dlp/train-KEY/slurm.out");
  EXPECT_EQ(s->chdir, "/shared/dlp/train-KEY");
  EXPECT_EQ(s->account, "proj");
}

TEST(BuildSubmission, QueuePriorityAndRequeue) {
  JobSpec spec = TwoRoles();
  auto s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->partition, "batch");  // "default" queue: the context's partition
  EXPECT_EQ(s->nice, 0);
  EXPECT_TRUE(s->requeue);

  spec.queue = "gpu";
  spec.priority = -5;
  spec.restart_policy = {RestartPolicyKind::kNever, 0, 0};
  s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->partition, "gpu");
  EXPECT_EQ(s->nice, 5);
  EXPECT_FALSE(s->requeue);
  EXPECT_THAT(s->script, HasSubstr("#SBATCH --no-requeue\n"));
  EXPECT_THAT(s->script, Not(HasSubstr("--open-mode")));

  spec.priority = 10;  // higher priorities need a QoS, not a negative nice
  spec.restart_policy = {RestartPolicyKind::kExitCode, 0, 0};
  s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->nice, 0);
  EXPECT_FALSE(s->requeue);  // no restarts allowed
}

TEST(BuildSubmission, DependsOnBecomesSlurmDependencies) {
  JobSpec spec = TwoRoles();
  auto none = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->dependency, "");
  EXPECT_EQ(none->script.find("dependency"), std::string::npos);
  spec.depends_on = {{"12", DependencyCondition::kSucceeded},
                     {"13", DependencyCondition::kFailed},
                     {"14", DependencyCondition::kFinished}};
  auto s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dependency, "afterok:12,afternotok:13,afterany:14");
  EXPECT_NE(s->script.find("#SBATCH --dependency=afterok:12,afternotok:13,afterany:14\n"),
            std::string::npos)
      << s->script;
  EXPECT_NE(s->script.find("#SBATCH --kill-on-invalid-dep=yes\n"), std::string::npos);
}

TEST(BuildSubmission, ScriptIsTheAllocationAndOneSrunOfDlpRun) {
  auto s = BuildSubmission(TwoRoles(), JobLayout());
  ASSERT_TRUE(s.ok());
  std::vector<std::string> lines = absl::StrSplit(s->script, '\n', absl::SkipEmpty());
  EXPECT_LT(lines.size(), 25u) << s->script;
  EXPECT_EQ(lines.front(), "#!/bin/bash");
  for (const char* line :
       {"#SBATCH --job-name=train", "#SBATCH --partition=batch", "#SBATCH --ntasks=4",
        "#SBATCH --cpus-per-task=2", "#SBATCH --mem-per-cpu=2048", "#SBATCH --gpus-per-task=1",
        "#SBATCH --time=2", "#SBATCH --nodes=1-4", "#SBATCH --requeue",
        "#SBATCH --open-mode=append", "#SBATCH --comment=dlp:train-KEY,team=vision"}) {
    EXPECT_THAT(s->script, HasSubstr(std::string(line) + "\n")) << s->script;
  }
  EXPECT_EQ(lines.back(),
            "DLP_JOB_NAME=train DLP_OUTPUT_DIR=/shared/dlp/train-KEY/output srun "
            "--kill-on-bad-exit=0 /opt/dlp/bin/dlp-run --group "
            "/shared/dlp/train-KEY/group.json --log-dir /shared/dlp/train-KEY/logs "
            "--status-file /shared/dlp/train-KEY/status.json --trace-dir "
            "/shared/dlp/train-KEY/traces");
  // The user's commands and environment are in the group file, not the script.
  EXPECT_THAT(s->script, Not(HasSubstr("train.py")));
  EXPECT_THAT(s->script, Not(HasSubstr("rm -rf")));
  int commands = 0;
  for (const std::string& line : lines) commands += line[0] != '#';
  EXPECT_EQ(commands, 2) << s->script;  // the rendezvous secret, then srun
  // Drawn when the script runs: no secret is written into the script itself.
  EXPECT_EQ(lines[lines.size() - 2],
            "export DLP_RDZV_SECRET=\"$(od -An -N32 -tx1 /dev/urandom | tr -d ' \\n')\"");
}

TEST(BuildSubmission, OddTextIsQuotedOrKeptOffTheSbatchLines) {
  JobSpec spec = TwoRoles();
  spec.name = "it's";
  SlurmJobLayout layout = JobLayout();
  layout.job_dir = "/shared/my jobs/x";
  auto s = BuildSubmission(spec, layout);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name, "it_s");
  EXPECT_THAT(s->script, HasSubstr("# --output is passed on sbatch's command line\n"));
  EXPECT_THAT(s->script,
              HasSubstr("DLP_JOB_NAME='it'\\''s' DLP_OUTPUT_DIR='/shared/my jobs/x/output' srun"));
  EXPECT_THAT(s->script, HasSubstr("--group '/shared/my jobs/x/group.json'"));
}

TEST(BuildSubmission, RefusesAJobWithoutReplicas) {
  JobSpec spec = TwoRoles();
  spec.replicas.clear();
  EXPECT_FALSE(BuildSubmission(spec, JobLayout()).ok());
  spec = TwoRoles();
  spec.replicas[0].command.clear();
  auto s = BuildSubmission(spec, JobLayout());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("spec.replicas.chief"));
}

// A spec that skipped validation must still never crash the render (it
// divided by a cpus-per-task that wrapped to 0) nor print a wrapped number.
TEST(BuildSubmission, CpusSlurmCannotHoldAreRefusedNotWrapped) {
  for (int64_t cpus : {int64_t{4294967296}, int64_t{3000000000}, int64_t{65534}}) {
    JobSpec spec = TwoRoles();
    spec.replicas[1].resources.cpu_millis = cpus * 1000;
    auto s = BuildSubmission(spec, JobLayout());
    ASSERT_FALSE(s.ok()) << cpus << ": " << s->script;
    EXPECT_TRUE(absl::IsInvalidArgument(s.status()));
    EXPECT_THAT(s.status().message(),
                HasSubstr(absl::StrCat("spec.replicas.worker.resources.cpu: ", cpus,
                                       " CPUs per task; Slurm allows at most 65533")));
  }
  JobSpec spec = TwoRoles();
  spec.replicas[1].resources.cpu_millis = int64_t{4096} * 1000;  // the spec's maximum
  spec.replicas[1].resources.memory_bytes = int64_t{16} << 40;
  auto s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->cpus_per_task, 4096);
  EXPECT_EQ(s->mem_per_cpu_mb, 4096);  // 16Ti over 4096 CPUs
  EXPECT_THAT(s->script, HasSubstr("#SBATCH --cpus-per-task=4096\n"));
  JobSpec wrap = TwoRoles();
  wrap.replicas[0].count = std::numeric_limits<int>::max();
  EXPECT_THAT(BuildSubmission(wrap, JobLayout()).status().message(),
              HasSubstr("spec.replicas: too many replicas to count"));
}

TEST(BuildSubmission, FractionalGpusAndGpuTypesAreRefused) {
  JobSpec spec = TwoRoles();
  spec.replicas[1].resources.gpu_millis = 500;
  EXPECT_THAT(BuildSubmission(spec, JobLayout()).status().message(),
              HasSubstr("spec.replicas.worker.resources.gpu: 0.5 GPU: the Slurm backend "
                        "allocates whole GPUs only"));
  spec = TwoRoles();
  spec.replicas[1].resources.gpu_type = "h200";
  EXPECT_THAT(BuildSubmission(spec, JobLayout()).status().message(),
              HasSubstr("spec.replicas.worker.resources.gpuType: the Slurm backend does not "
                        "choose GPU types"));
  spec = TwoRoles();
  spec.replicas[1].resources.gpu_millis = 2000;
  auto s = BuildSubmission(spec, JobLayout());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->gpus_per_task, 2);
}

TEST(Comment, CarriesTheKeyAndTheLabels) {
  JobSpec spec = TwoRoles();
  spec.labels = {{"team", "vision"}, {"run id", "a/b"}};
  const std::string comment = SlurmComment("train-1-abc", spec);
  EXPECT_EQ(comment, "dlp:train-1-abc,run_id=a_b,team=vision");
  EXPECT_EQ(KeyFromComment(comment), "train-1-abc");
  EXPECT_EQ(KeyFromComment("dlp:only"), "only");
  EXPECT_EQ(KeyFromComment("dlp:k with space"), "k");
  EXPECT_EQ(KeyFromComment("someone else's job"), "");
  EXPECT_EQ(KeyFromComment("dlp:"), "");
  EXPECT_EQ(KeyFromComment("dlp:.."), "");
  EXPECT_EQ(KeyFromComment("dlp:../etc"), "");
  EXPECT_EQ(SlurmJobName("a b/c"), "a_b_c");
  EXPECT_EQ(SlurmJobName(""), "dlp-job");
}

}  // namespace
}  // namespace dlp::internal
