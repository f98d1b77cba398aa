// Each started job's per-replica GPU placement in the store (schema version
// 7): it survives a reopen and shows on the public job as it is stored; rows
// from before it, which had only the column `gpus`, are migrated into it
// (schema version 16).
#include <gtest/gtest.h>

#include <utility>

#include "server/controller/controller.h"
#include "server/controller/snapshot_builder.h"
#include "server/store/job_store.h"
#include "server/store/placement_codec.h"
#include "server/store/stored_spec.h"
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
  EXPECT_EQ(job->job.replicas[0].gpus, kPlacement[0].gpus);
  EXPECT_EQ(job->job.replicas[1].gpus, kPlacement[1].gpus);
  EXPECT_EQ(FormatGpuShares(job->job.replicas[0].gpus), "0 (0.5)");
  EXPECT_EQ(FormatGpuShares(job->job.replicas[1].gpus), "MIG-x (0.5)");
  auto listed = store->List({});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)[0].placement, kPlacement);
}

// A store of schema version 15 (made by its own migrations, as that dlpd
// made it) with rows as a dlpd before version 7 wrote them: only `gpus`.
TEST(PlacementStore, TheLegacyGpusColumnIsMigratedIntoThePlacement) {
  dlp::testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  const std::string placed = PlacementToJson(kPlacement, "MPS");
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    auto version = MigrateSchema(*db, 15);
    ASSERT_TRUE(version.ok()) << version.status();
    ASSERT_EQ(*version, 15);
    auto spec = StoredSpecText(NewRecord().job.spec);
    ASSERT_TRUE(spec.ok()) << spec.status();
    const std::pair<std::string, std::string> rows[] = {
        {"2,3", ""},     // whole devices 2 and 3, from before version 7
        {"", ""},        // no GPU
        {"0", placed},   // placed since version 7: its placement stays
        {"1,x", ""}};    // not a list of devices: never written by dlpd
    for (const auto& [gpus, placement] : rows) {
      auto insert = db->Prepare(
          "INSERT INTO jobs (name, state, spec, created_us, gpus, placement) "
          "VALUES ('old', 'Running', ?, 0, ?, ?)");
      ASSERT_TRUE(insert.ok()) << insert.status();
      insert->Bind(1, *spec).Bind(2, gpus).Bind(3, placement);
      ASSERT_TRUE(insert->Run().ok());
    }
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(store->schema_version(), LatestSchemaVersion());
  const std::vector<ReplicaPlacement> whole = {{"job", {{"2", 1000}, {"3", 1000}}}};
  auto legacy = store->Get(1);
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_EQ(legacy->placement, whole);
  EXPECT_EQ(RunningOf(*legacy).placement, whole);  // the scheduler sees them held
  EXPECT_TRUE(store->Get(2)->placement.empty());
  auto placed_job = store->Get(3);
  ASSERT_TRUE(placed_job.ok());
  EXPECT_EQ(placed_job->placement, kPlacement);
  EXPECT_TRUE(store->Get(4)->placement.empty());

  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok());
  EXPECT_FALSE(db->Prepare("SELECT gpus FROM jobs").ok()) << "the column `gpus` is still there";
  auto kept = db->Prepare("SELECT placement FROM jobs WHERE id = 3");
  ASSERT_TRUE(kept.ok() && *kept->Step());
  EXPECT_EQ(kept->Text(0), placed);  // as it was, its sharing ("MPS") with it
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
