// JobStore::DeleteGroup: a sweep's or pipeline's rows go with its jobs' in
// one commit, and nothing else goes; a member job alone is refused, naming
// the command that deletes it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "server/store/job_records.h"
#include "server/store/job_store.h"
#include "server/store/sweep_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::HasSubstr;

SweepSpec TwoPointGrid() {
  SweepSpec spec;
  spec.name = "s";
  spec.objective.metric = "acc";
  spec.search.algorithm = SearchAlgorithm::kGrid;
  ParameterSpec a;
  a.name = "a";
  a.type = ParamType::kCategorical;
  a.values = {"1", "2"};
  spec.parameters.push_back(a);
  spec.job = NewRecord("s").job.spec;
  return spec;
}

class GroupDeletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto jobs = JobStore::Open(path_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_.emplace(std::move(*jobs));
    auto sweeps = SweepStore::Open(path_);
    ASSERT_TRUE(sweeps.ok()) << sweeps.status();
    sweeps_ = std::move(*sweeps);
  }
  int64_t Insert(const std::string& name) {
    auto r = jobs_->Insert(NewRecord(name));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->seq : 0;
  }
  // A sweep whose two trials ran jobs `first` and `second` (the first one
  // stopped at a rung).
  Sweep StoredSweep(int64_t first, int64_t second) {
    Sweep sweep;
    sweep.tenant = "alice";
    sweep.state = SweepState::kSucceeded;
    sweep.spec = TwoPointGrid();
    for (int64_t job : {first, second}) {
      SweepTrial t;
      t.number = static_cast<int>(sweep.trials.size()) + 1;
      t.job = std::to_string(job);
      t.state = TrialState::kSucceeded;
      sweep.trials.push_back(t);
    }
    sweep.trials[0].stopped_at = 1;
    auto stored = sweeps_->Insert(sweep);
    EXPECT_TRUE(stored.ok()) << stored.status();
    return stored.ok() ? *stored : sweep;
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.Join("dlpd.db");
  std::optional<JobStore> jobs_;
  std::unique_ptr<SweepStore> sweeps_;
};

TEST_F(GroupDeletionTest, ASweepGoesWithItsTrialsJobsAndNothingElse) {
  const int64_t a = Insert("s-1"), b = Insert("s-2"), other = Insert("other");
  const Sweep sweep = StoredSweep(a, b);
  const Sweep kept = StoredSweep(other, other);
  int64_t id = 0;
  ASSERT_TRUE(absl::SimpleAtoi(sweep.id, &id));

  const absl::Status alone = jobs_->Delete(a);
  EXPECT_TRUE(absl::IsFailedPrecondition(alone)) << alone;
  EXPECT_THAT(alone.message(), HasSubstr("(dlp sweep delete " + sweep.id + ")"));

  ASSERT_TRUE(jobs_->DeleteGroup({JobGroup::Kind::kSweep, id}, {a, b}).ok());
  EXPECT_TRUE(absl::IsNotFound(sweeps_->Get(sweep.id).status()));
  EXPECT_TRUE(absl::IsNotFound(jobs_->Get(a).status()));
  EXPECT_TRUE(absl::IsNotFound(jobs_->Get(b).status()));
  EXPECT_TRUE(jobs_->Events(a)->empty());
  EXPECT_TRUE(jobs_->Get(other).ok());
  auto still = sweeps_->Get(kept.id);
  ASSERT_TRUE(still.ok()) << still.status();
  EXPECT_EQ(still->trials.size(), 2u);
}

TEST_F(GroupDeletionTest, APipelineGoesWithItsJobs) {
  PipelineRecord record;
  record.tenant = "alice";
  record.name = "p";
  record.created = absl::Now();
  std::vector<PipelineMember> members = {{"first", NewRecord("first")},
                                         {"second", NewRecord("second")}};
  auto pipeline = jobs_->InsertPipeline(
      record, members,
      [](JobSpec&, const std::map<std::string, std::string>&) { return absl::OkStatus(); });
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  const int64_t other = Insert("other");
  std::vector<int64_t> seqs;
  for (const auto& [name, seq] : pipeline->jobs) seqs.push_back(seq);
  ASSERT_EQ(seqs.size(), 2u);

  const absl::Status alone = jobs_->Delete(seqs[0]);
  EXPECT_TRUE(absl::IsFailedPrecondition(alone)) << alone;
  EXPECT_THAT(alone.message(),
              HasSubstr("(dlp pipeline delete " + std::to_string(pipeline->seq) + ")"));

  ASSERT_TRUE(jobs_->DeleteGroup({JobGroup::Kind::kPipeline, pipeline->seq}, seqs).ok());
  EXPECT_TRUE(absl::IsNotFound(jobs_->GetPipeline(pipeline->seq).status()));
  EXPECT_TRUE(jobs_->ListPipelines("")->empty());
  for (int64_t seq : seqs) EXPECT_TRUE(absl::IsNotFound(jobs_->Get(seq).status())) << seq;
  EXPECT_TRUE(jobs_->Get(other).ok());
  EXPECT_TRUE(jobs_->Delete(other).ok());  // no longer anyone's member
}

}  // namespace
}  // namespace dlp::server
