// What each backend makes of an elastic worker (minCount below count): dlpd
// resizes it (the local render says so); Slurm and Kubernetes run it at its
// count and their renders say why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/api/dlp_run_render.h"
#include "backends/kubernetes/kubernetes_backend.h"
#include "backends/slurm/batch_script.h"
#include "job/elastic_note.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JobSpec Elastic(int min_count) {
  JobSpec spec;
  spec.name = "el";
  ReplicaSpec worker{"worker", 4, {"python3", "train.py"}, {}, {1000, 0, 0}};
  worker.min_count = min_count;
  spec.replicas = {worker};
  return spec;
}

TEST(ElasticRender, TheNoteNamesTheRoleItsRangeAndWhy) {
  EXPECT_EQ(RunsAtCountNote(Elastic(2), "on X, because Y"),
            "# worker is elastic (minCount 2): on X, because Y, it runs with all 4 replicas and "
            "neither grows nor shrinks.\n");
  EXPECT_EQ(RunsAtCountNote(Elastic(0), "on X"), "");
  EXPECT_EQ(RunsAtCountNote(Elastic(4), "on X"), "");
}

TEST(ElasticRender, LocalRenderSaysDlpdResizesIt) {
  EXPECT_THAT(RenderDlpRun(Elastic(2)),
              HasSubstr("# worker is elastic: dlpd starts it with as many of 2 to 4 replicas as "
                        "fit, grows and shrinks it"));
  EXPECT_THAT(RenderDlpRun(Elastic(0)), Not(HasSubstr("elastic")));
}

TEST(ElasticRender, SlurmRunsItAtItsCount) {
  SlurmJobLayout layout;
  layout.job_dir = "/shared/dlp/el-KEY";
  absl::StatusOr<SlurmSubmission> s = BuildSubmission(Elastic(2), layout);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->tasks, 4);
  EXPECT_EQ(s->max_nodes, 4);
  EXPECT_THAT(s->script, HasSubstr("# worker is elastic (minCount 2): on Slurm, whose allocation "
                                   "of tasks is fixed once the job starts, it runs with all 4"));
}

TEST(ElasticRender, KubernetesRunsItAtItsCount) {
  k8s::KubernetesOptions options;
  options.render.image = "dlp:test";
  k8s::KubernetesBackend backend(options);
  absl::StatusOr<std::string> yaml = backend.Render(Elastic(2));
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_THAT(*yaml, HasSubstr("# worker is elastic (minCount 2): on Kubernetes, where no "
                               "workload flavour resizes a running gang"));
  EXPECT_THAT(*yaml, HasSubstr("completions: 4"));
}

}  // namespace
}  // namespace dlp::internal
