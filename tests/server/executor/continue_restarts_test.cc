// A job that dlpd starts again, after a preemption or re-formed at another
// size (elastic): its restarts go on, only failures use up maxRestarts, and
// TORCHELASTIC_MAX_RESTARTS stays the spec's, as torchrun's --max-restarts
// (its elastic agent counts no change of membership as a restart either).
#include "server/executor/continue_restarts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/group.h"
#include "dlp/job.h"
#include "dlp/job_group.h"

namespace dlp::server {
namespace {

JobSpec ElasticSpec() {
  JobSpec spec;
  spec.name = "elastic";
  ReplicaSpec worker;
  worker.role = "worker";
  worker.count = 4;
  worker.min_count = 2;
  worker.command = {"train"};
  spec.replicas = {worker};
  spec.restart_policy.policy = RestartPolicyKind::kOnFailure;
  spec.restart_policy.max_restarts = 3;
  return spec;
}

// The group of the elastic spec for a job with these restarts so far.
contract::Group Continued(int restarts, int preemptions, int resizes) {
  const JobSpec spec = ElasticSpec();
  Job job;
  job.restart_count = restarts;
  job.preemptions = preemptions;
  job.resizes = resizes;
  absl::StatusOr<contract::Group> group =
      contract::ParseGroupJson(JobGroupJson(spec), "the spec");
  EXPECT_TRUE(group.ok()) << group.status();
  ContinueRestarts(job, spec, *group);
  return *group;
}

TEST(ContinueRestarts, AFirstStartHasTheWholeBudget) {
  const contract::Group group = Continued(0, 0, 0);
  EXPECT_EQ(group.restart_count, 0);
  EXPECT_EQ(group.max_restarts, 3);
  EXPECT_EQ(group.job_max_restarts, 0);
  EXPECT_EQ(contract::TorchMaxRestarts(group), 3);
}

// Two failures, then a resize: the re-formed group keeps the restart count
// (a change of size is no restart, as in torchrun) and may fail once more;
// the group file carries the spec's 3 for TORCHELASTIC_MAX_RESTARTS, not the 1 left.
TEST(ContinueRestarts, AGroupReformedAfterFailuresKeepsTorchrunsMaxRestarts) {
  const contract::Group group = Continued(2, 0, 1);
  EXPECT_EQ(group.restart_count, 2);
  EXPECT_EQ(group.max_restarts, 1);
  EXPECT_EQ(contract::TorchMaxRestarts(group), 3);
  EXPECT_NE(contract::GroupToJson(group).find("\"jobMaxRestarts\": 3"), std::string::npos);
}

// A preemption counts in DLP_RESTART_COUNT (the ranks resume) but uses up no
// failure restart: the budget is whole and the group file says nothing more.
TEST(ContinueRestarts, APreemptionUsesUpNoFailureRestart) {
  const contract::Group group = Continued(1, 1, 0);
  EXPECT_EQ(group.restart_count, 1);
  EXPECT_EQ(group.max_restarts, 3);
  EXPECT_EQ(group.job_max_restarts, 0);
}

}  // namespace
}  // namespace dlp::server
