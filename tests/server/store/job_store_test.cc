// The SQLite store: durability across reopen, migrations, filters, events.
#include "server/store/job_store.h"

#include <gtest/gtest.h>

#include "server/store/job_records.h"
#include "server/controller/controller.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

const std::vector<ReplicaPlacement> kWholeGpus = {{"worker-0", {{"0", 1000}}},
                                                  {"worker-1", {{"1", 1000}}}};

TEST(StoreTest, InsertAssignsIncreasingIdsAndSurvivesReopen) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    auto a = store->Insert(NewRecord("a"));
    auto b = store->Insert(NewRecord("b", "gpu", {{"team", "vision"}}));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->job.id, "1");
    EXPECT_EQ(b->job.id, "2");
    JobRecord running = *b;
    running.job.state = JobState::kRunning;
    running.job.started = absl::Now();
    running.runner_pid = 4242;
    running.runner_start_time = 77;
    running.placement = kWholeGpus;
    running.job.replicas[1].pid = 4250;
    running.job.replicas[1].exit_code = 3;
    ASSERT_TRUE(store->Update(running, {{absl::Now(), "Started", "go"}}).ok());
  }
  auto store = JobStore::Open(path);  // as after a crash: a new connection
  ASSERT_TRUE(store.ok()) << store.status();
  auto b = store->Get(2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->job.name, "b");
  EXPECT_EQ(b->job.queue, "gpu");
  EXPECT_EQ(b->job.tenant, "default");
  EXPECT_EQ(b->job.state, JobState::kRunning);
  EXPECT_EQ(b->runner_pid, 4242);
  EXPECT_EQ(b->runner_start_time, 77);
  EXPECT_EQ(b->placement, kWholeGpus);
  EXPECT_EQ(b->job.spec.labels.at("team"), "vision");
  ASSERT_EQ(b->job.replicas.size(), 2u);
  EXPECT_EQ(b->job.replicas[1].name, "worker-1");
  EXPECT_EQ(b->job.replicas[1].pid, 4250);
  EXPECT_EQ(b->job.replicas[1].exit_code, 3);
  EXPECT_FALSE(b->job.replicas[0].exit_code.has_value());
  auto events = store->Events(2);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].type, "Submitted");
  EXPECT_EQ((*events)[1].type, "Started");
  auto c = store->Insert(NewRecord("c"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->job.id, "3");
}

TEST(StoreTest, GetMissingIsNotFound) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(absl::IsNotFound(store->Get(9).status()));
}

TEST(StoreTest, ListFiltersAndLimitKeepsNewestOldestFirst) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(store.ok());
  for (const char* q : {"a", "b", "a", "a"}) ASSERT_TRUE(store->Insert(NewRecord("j", q)).ok());
  StoreFilter by_queue;
  by_queue.queue = "a";
  auto a = store->List(by_queue);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ((*a)[0].job.id, "1");
  EXPECT_EQ((*a)[2].job.id, "4");
  StoreFilter newest;
  newest.limit = 2;
  auto n = store->List(newest);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(n->size(), 2u);
  EXPECT_EQ((*n)[0].job.id, "3");
  EXPECT_EQ((*n)[1].job.id, "4");
  StoreFilter running;
  running.state = JobState::kRunning;
  EXPECT_TRUE(store->List(running)->empty());
}

TEST(StoreTest, WalAndFullSyncAndSchemaVersion) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(store->schema_version(), LatestSchemaVersion());
  auto db = Database::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(db.ok());
  auto mode = db->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->Text(0), "wal");
  EXPECT_EQ(*db->QueryInt("PRAGMA user_version"), LatestSchemaVersion());
}

TEST(StoreTest, MigrationsRunOnceAndInOrder) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Join("m.db"));
  ASSERT_TRUE(db.ok());
  auto first = MigrateSchema(*db);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, LatestSchemaVersion());
  // Running again is a no-op (a second CREATE TABLE would fail).
  auto second = MigrateSchema(*db);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*db->QueryInt("SELECT count(*) FROM jobs"), 0);
}

TEST(StoreTest, PreemptionsAndQueueExplanationsSurviveReopen) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  const absl::Time estimate = absl::FromUnixSeconds(1796126400);
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_GE(store->schema_version(), 8);
    auto a = store->Insert(NewRecord("a"));
    auto b = store->Insert(NewRecord("b"));
    ASSERT_TRUE(a.ok() && b.ok());
    JobRecord preempted = *a;
    preempted.job.preemptions = 2;
    preempted.job.restart_count = 3;
    ASSERT_TRUE(store->Update(preempted).ok());
    ASSERT_TRUE(store
                    ->UpdateExplanations({{1, "Preempted by job 2", 1, estimate},
                                          {2, "waiting behind job 1", 2, std::nullopt}})
                    .ok());
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto jobs = store->List({});
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  const Job& a = (*jobs)[0].job;
  EXPECT_EQ(a.preemptions, 2);
  EXPECT_EQ(a.restart_count, 3);
  EXPECT_EQ(a.reason, "Preempted by job 2");
  EXPECT_EQ(a.position, 1);
  EXPECT_EQ(a.estimated_start, estimate);
  const Job& b = (*jobs)[1].job;
  EXPECT_EQ(b.preemptions, 0);
  EXPECT_EQ(b.position, 2);
  EXPECT_FALSE(b.estimated_start.has_value());
}

// A store written by the previous dlpd (schema 5): its jobs read back with no
// preemptions and no place in a queue.
TEST(StoreTest, PreemptionColumnsAreAddedToAnOlderStore) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->Insert(NewRecord("old")).ok());
  }
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("ALTER TABLE jobs DROP COLUMN preemptions; "
                         "ALTER TABLE jobs DROP COLUMN position; "
                         "ALTER TABLE jobs DROP COLUMN estimated_start_us; "
                         "ALTER TABLE jobs DROP COLUMN labels; "
                         "ALTER TABLE jobs ADD COLUMN gpus TEXT NOT NULL DEFAULT ''; "
                         "PRAGMA user_version = 7")
                    .ok());
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(store->schema_version(), LatestSchemaVersion());
  auto old = store->Get(1);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->job.preemptions, 0);
  EXPECT_FALSE(old->job.position.has_value());
}

TEST(StoreTest, NewerSchemaIsRefused) {
  testing::TempDir dir;
  {
    auto db = Database::Open(dir.Join("dlpd.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("PRAGMA user_version = 999").ok());
  }
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(store.status()));
  EXPECT_NE(store.status().message().find("999"), absl::string_view::npos);
}

TEST(StoreTest, UsageSamplesRoundTripAreBoundedAndSurviveReopen) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  const absl::Time t0 = absl::FromUnixSeconds(1700000000);
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    auto job = store->Insert(NewRecord("a"));
    ASSERT_TRUE(job.ok());
    for (int round = 0; round < 5; ++round) {
      std::vector<UsageSample> samples;
      for (const char* replica : {"worker-1", "worker-0"}) {
        UsageSample s;
        s.seq = job->seq;
        s.usage.replica = replica;
        s.usage.pid = 4250;
        s.usage.cpu_percent = 12.5 + round;
        s.usage.rss_bytes = 1000 + round;
        s.usage.time = t0 + absl::Seconds(round);
        if (std::string(replica) == "worker-1") {
          s.usage.gpu_util_percent = 80.25;
          s.usage.gpu_memory_bytes = int64_t{1} << 33;
        }
        samples.push_back(s);
      }
      ASSERT_TRUE(store->AddUsage(samples, 3).ok());
    }
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto latest = store->LatestUsage(1);
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_EQ(latest->size(), 2u);
  const ReplicaUsage& w0 = (*latest)[0];
  const ReplicaUsage& w1 = (*latest)[1];
  EXPECT_EQ(w0.replica, "worker-0");
  EXPECT_EQ(w0.pid, 4250);
  EXPECT_DOUBLE_EQ(w0.cpu_percent, 16.5);
  EXPECT_EQ(w0.rss_bytes, 1004);
  EXPECT_EQ(w0.time, t0 + absl::Seconds(4));
  EXPECT_EQ(w0.gpu_util_percent, -1);  // no GPU data stays "none"
  EXPECT_EQ(w0.gpu_memory_bytes, -1);
  EXPECT_EQ(w1.replica, "worker-1");
  EXPECT_DOUBLE_EQ(w1.gpu_util_percent, 80.25);
  EXPECT_EQ(w1.gpu_memory_bytes, int64_t{1} << 33);
  // Retention: only the newest 3 of each replica, oldest first.
  auto history = store->UsageHistory(1, "worker-0");
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].rss_bytes, 1002);
  EXPECT_EQ((*history)[2].rss_bytes, 1004);
  EXPECT_EQ(store->UsageHistory(1, "worker-1")->size(), 3u);
  EXPECT_TRUE(store->LatestUsage(2)->empty());
}

}  // namespace
}  // namespace dlp::server

namespace dlp::server {
namespace {

TEST(StoreTest, InsertRefusesASpecThatWouldNotReadBack) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(store.ok());
  JobRecord huge = NewRecord("huge");
  huge.job.spec.replicas[0].resources.memory_bytes = int64_t{4611686018427387905};
  auto refused = store->Insert(huge);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_NE(refused.status().message().find("the spec cannot be stored: "), absl::string_view::npos)
      << refused.status();
  EXPECT_TRUE(store->List({})->empty());  // nothing written
  // What is stored is the canonical form, and reads back the same.
  auto ok = store->Insert(NewRecord("ok"));
  ASSERT_TRUE(ok.ok()) << ok.status();
  auto back = store->Get(ok->seq);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->quarantine.empty());
  EXPECT_EQ(back->job.spec, ok->job.spec);
}

// The group commit of concurrent submissions: one transaction for many jobs,
// in order; a spec that would not read back is refused alone.
TEST(StoreTest, InsertAllCommitsTogetherAndRefusesOnlyTheBadSpec) {
  testing::TempDir dir;
  std::vector<int64_t> ids;
  {
    auto store = JobStore::Open(dir.Join("dlpd.db"));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->Insert(NewRecord("first")).ok());
    JobRecord huge = NewRecord("huge");
    huge.job.spec.replicas[0].resources.memory_bytes = int64_t{4611686018427387905};
    std::vector<JobRecord> batch;
    batch.push_back(NewRecord("a"));
    batch.push_back(huge);
    batch.push_back(NewRecord("b", "gpu"));
    std::vector<absl::StatusOr<JobRecord>> results = store->InsertAll(std::move(batch));
    ASSERT_EQ(results.size(), 3u);
    ASSERT_TRUE(results[0].ok()) << results[0].status();
    EXPECT_TRUE(absl::IsInvalidArgument(results[1].status())) << results[1].status();
    ASSERT_TRUE(results[2].ok()) << results[2].status();
    EXPECT_EQ(results[0]->job.name, "a");
    EXPECT_EQ(results[2]->job.name, "b");
    EXPECT_EQ(results[2]->seq, results[0]->seq + 1);
    EXPECT_EQ(results[0]->job.id, std::to_string(results[0]->seq));
    ids = {results[0]->seq, results[2]->seq};
  }
  auto store = JobStore::Open(dir.Join("dlpd.db"));  // what a new daemon reads
  ASSERT_TRUE(store.ok());
  auto all = store->List({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  for (int64_t seq : ids) {
    auto job = store->Get(seq);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->job.replicas.size(), 2u);
    auto events = store->Events(seq);
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ((*events)[0].type, "Submitted");
  }
}

TEST(StoreTest, RowWhoseSpecDoesNotReadBackIsQuarantinedNotFatal) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->Insert(NewRecord("fine")).ok());
  auto broken = store->Insert(NewRecord("broken", "gpu"));
  ASSERT_TRUE(broken.ok());
  {  // as a dlpd without bounds wrote it: 2^62 + 1 bytes does not parse back
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("UPDATE jobs SET spec = '{\"name\":\"broken\",\"replicas\":[{\"role\":"
                         "\"worker\",\"count\":2,\"command\":[\"x\"],\"resources\":{\"memory\":"
                         "\"4611686018427387905\"}}]}' WHERE id = 2")
                    .ok());
  }
  auto all = store->List({});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_TRUE((*all)[0].quarantine.empty());
  const JobRecord& q = (*all)[1];
  EXPECT_EQ(q.job.name, "broken");
  EXPECT_EQ(q.job.spec.name, "broken");
  EXPECT_EQ(q.job.spec.queue, "gpu");
  EXPECT_TRUE(q.job.spec.replicas.empty());
  EXPECT_NE(q.quarantine.find("quarantined: the stored spec cannot be read back: "),
            std::string::npos);
  EXPECT_NE(q.quarantine.find("is not a memory quantity"), std::string::npos) << q.quarantine;
  EXPECT_EQ(q.job.reason, q.quarantine);
  auto one = store->Get(2);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->quarantine, q.quarantine);
}

}  // namespace
}  // namespace dlp::server
