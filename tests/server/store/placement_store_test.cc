// Each started job's per-replica GPU placement in the store (schema version
// 7): it survives a reopen, shows on the public job, and rows from before it
// keep their `gpus`.
#include <gtest/gtest.h>

#include "server/controller/controller.h"
#include "server/controller/snapshot_builder.h"
#include "server/store/job_store.h"
#include "server/store/placement_codec.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

JobRecord NewRecord() {
  JobRecord r;
  r.job.name = "shared";
  r.job.spec.name = "shared";
  ReplicaSpec worker{.role = "worker", .count = 2, .command = {"true"}};
  worker.resources.gpu_millis = 500;
  r.job.spec.replicas.push_back(worker);
  r.job.spec.workdir = "/tmp";
  r.job.replicas = InitialReplicas(r.job.spec);
  return r;
}

const std::vector<ReplicaPlacement> kPlacement = {{"worker-0", {{"0", 500}}},
                                                  {"worker-1", {{"MIG-x", 500}}}};

TEST(PlacementStore, APlacementSurvivesAReopenAndShowsOnTheJob) {
  dlp::testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_GE(store->schema_version(), 7);
    auto inserted = store->Insert(NewRecord());
    ASSERT_TRUE(inserted.ok()) << inserted.status();
    JobRecord running = *inserted;
    running.job.state = JobState::kRunning;
    running.placement = kPlacement;
    running.gpus = GpuIndices(kPlacement);
    running.job.gpu_sharing = "by placement only (no MPS control daemon)";
    ASSERT_TRUE(store->Update(running).ok());
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto job = store->Get(1);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->placement, kPlacement);
  EXPECT_EQ(RunningOf(*job).placement, kPlacement);  // what the policy sees held
  EXPECT_EQ(job->job.gpu_sharing, "by placement only (no MPS control daemon)");
  ASSERT_EQ(job->job.replicas.size(), 2u);
  EXPECT_EQ(job->job.replicas[0].gpus, "0 (0.5)");
  EXPECT_EQ(job->job.replicas[1].gpus, "MIG-x (0.5)");
  auto listed = store->List({});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)[0].placement, kPlacement);
}

TEST(PlacementStore, ARowFromBeforeVersion7KeepsItsWholeGpus) {
  dlp::testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto inserted = store->Insert(NewRecord());
  ASSERT_TRUE(inserted.ok());
  JobRecord running = *inserted;
  running.job.state = JobState::kRunning;
  running.gpus = {2, 3};  // as an older dlpd wrote it: no placement
  ASSERT_TRUE(store->Update(running).ok());
  auto job = store->Get(1);
  ASSERT_TRUE(job.ok());
  EXPECT_TRUE(job->placement.empty());
  EXPECT_EQ(RunningOf(*job).placement,
            (std::vector<ReplicaPlacement>{{"job", {{"2", 1000}, {"3", 1000}}}}));
  EXPECT_EQ(job->job.replicas[0].gpus, "");
}

TEST(PlacementStore, TheCodecRoundTripsAndRefusesGarbage) {
  std::vector<ReplicaPlacement> placement;
  std::string sharing;
  ASSERT_TRUE(PlacementFromJson(PlacementToJson(kPlacement, "MPS"), placement, sharing).ok());
  EXPECT_EQ(placement, kPlacement);
  EXPECT_EQ(sharing, "MPS");
  EXPECT_EQ(PlacementToJson({}, "MPS"), "");
  EXPECT_TRUE(PlacementFromJson("", placement, sharing).ok());
  EXPECT_TRUE(placement.empty());
  EXPECT_FALSE(PlacementFromJson("{\"replicas\": [{\"replica\": 1}]}", placement, sharing).ok());
  EXPECT_FALSE(PlacementFromJson("[", placement, sharing).ok());
}

}  // namespace
}  // namespace dlp::server
