// Queues and their tenants in the SQLite store: create, update, delete, the
// in-memory catalog the scheduler reads (a new generation per change),
// limits kept apart from "no limit", --config's idempotent apply, grants,
// and all of it surviving a reopen.
#include "server/store/queue_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/store/job_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

QueueConfig MakeQueue(const std::string& name, const std::string& nominal,
                      const std::string& cohort = "") {
  QueueConfig q;
  q.name = name;
  q.cohort = cohort;
  absl::StatusOr<QueueResources> r = ParseQueueResources(nominal);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) q.nominal = ToResourceVector(*r);
  return q;
}

class QueueStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    store_.reset();
    auto store = QueueStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.Join("dlpd.db");
  std::unique_ptr<QueueStore> store_;
};

TEST_F(QueueStoreTest, CreateUpdateDeleteThroughTheCatalog) {
  EXPECT_TRUE(store_->Catalog()->queues.empty());
  QueueConfig vision = MakeQueue("vision", "cpu=8,memory=64Gi,gpu=4,gpu.h100=2", "lab");
  vision.borrowing_limit = ToResourceVector(*ParseQueueResources("gpu=2"));
  vision.weight = 2;
  vision.min_priority = -100;
  vision.max_priority = 1000;
  ASSERT_TRUE(store_->Create(vision).ok());
  ASSERT_TRUE(store_->Create(MakeQueue("nlp", "cpu=8", "lab")).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store_->Create(MakeQueue("nlp", "cpu=1")).status()));

  std::shared_ptr<const QueueCatalog> catalog = store_->Catalog();
  ASSERT_EQ(catalog->queues.size(), 2u);
  EXPECT_EQ(catalog->queues[0].name, "nlp");  // by name
  ASSERT_NE(catalog->Find("vision"), nullptr);
  EXPECT_EQ(*catalog->Find("vision"), vision);
  EXPECT_FALSE(catalog->Find("nlp")->borrowing_limit.has_value());
  EXPECT_EQ(catalog->Names(), "nlp, vision");

  QueueConfig changed = vision;
  changed.weight = 5;
  changed.borrowing_limit.reset();
  changed.lending_limit = ResourceVector{};  // lends nothing: not the same as no limit
  ASSERT_TRUE(store_->Update(changed).ok());
  EXPECT_EQ(*store_->Catalog()->Find("vision"), changed);
  EXPECT_GT(store_->Catalog()->generation, catalog->generation);
  EXPECT_EQ(catalog->Find("vision")->weight, 2) << "a taken catalog never changes";
  EXPECT_TRUE(absl::IsNotFound(store_->Update(MakeQueue("gone", "cpu=1")).status()));

  ASSERT_TRUE(store_->Delete("nlp").ok());
  EXPECT_TRUE(absl::IsNotFound(store_->Delete("nlp")));
  Reopen();
  ASSERT_EQ(store_->Catalog()->queues.size(), 1u);
  EXPECT_EQ(store_->Catalog()->queues[0], changed);
}

TEST_F(QueueStoreTest, RefusesBadSettings) {
  EXPECT_THAT(store_->Create(MakeQueue("Big Queue", "cpu=1")).status().message(),
              HasSubstr("not a valid queue name"));
  QueueConfig weightless = MakeQueue("a", "cpu=1");
  weightless.weight = 0;
  EXPECT_THAT(store_->Create(weightless).status().message(), HasSubstr("weight"));
  QueueConfig backwards = MakeQueue("a", "cpu=1");
  backwards.min_priority = 10;
  backwards.max_priority = 1;
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Create(backwards).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Create(MakeQueue("a", "cpu=1", "Lab!")).status()));
  EXPECT_TRUE(store_->Catalog()->queues.empty());
}

TEST_F(QueueStoreTest, ApplyIsIdempotentAndLeavesOtherQueuesAlone) {
  ASSERT_TRUE(store_->Create(MakeQueue("manual", "cpu=1")).ok());
  ASSERT_TRUE(store_->Create(MakeQueue("vision", "cpu=1")).ok());
  const std::vector<QueueConfig> file = {MakeQueue("vision", "cpu=8,gpu=4", "lab"),
                                         MakeQueue("nlp", "cpu=8", "lab")};
  absl::StatusOr<QueueApplyResult> first = store_->Apply(file);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->created, 1);
  EXPECT_EQ(first->updated, 1);  // the file wins over what was stored
  EXPECT_EQ(first->unchanged, 0);
  Reopen();
  absl::StatusOr<QueueApplyResult> again = store_->Apply(file);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->unchanged, 2);
  EXPECT_EQ(again->created + again->updated, 0);
  std::shared_ptr<const QueueCatalog> catalog = store_->Catalog();
  EXPECT_EQ(catalog->queues.size(), 3u);
  EXPECT_NE(catalog->Find("manual"), nullptr);
  EXPECT_EQ(*catalog->Find("vision"), file[0]);

  std::vector<QueueConfig> bad = {MakeQueue("ok", "cpu=1"), MakeQueue("-bad", "cpu=1")};
  EXPECT_THAT(store_->Apply(bad).status().message(), HasSubstr("queue -bad"));
  EXPECT_EQ(store_->Catalog()->Find("ok"), nullptr) << "nothing applied";
}

TEST_F(QueueStoreTest, TenantGrants) {
  ASSERT_TRUE(store_->Create(MakeQueue("vision", "cpu=1")).ok());
  ASSERT_TRUE(store_->Create(MakeQueue("nlp", "cpu=1")).ok());
  ASSERT_TRUE(store_->SetTenantQueues("alice", {"vision", "nlp"}).ok());
  ASSERT_TRUE(store_->SetTenantQueues("bob", {"nlp"}).ok());
  EXPECT_THAT(store_->Catalog()->allowed.at("alice"), ElementsAre("nlp", "vision"));
  absl::Status unknown = store_->SetTenantQueues("alice", {"vision", "audio"});
  EXPECT_TRUE(absl::IsNotFound(unknown));
  EXPECT_THAT(unknown.message(), HasSubstr("no queue \"audio\"; its queues are nlp, vision"));
  EXPECT_THAT(store_->Catalog()->allowed.at("alice"), ElementsAre("nlp", "vision"));

  ASSERT_TRUE(store_->SetTenantQueues("alice", {"vision"}).ok());
  ASSERT_TRUE(store_->Delete("nlp").ok());  // takes its grants along
  Reopen();
  EXPECT_THAT(store_->Catalog()->allowed.at("alice"), ElementsAre("vision"));
  EXPECT_FALSE(store_->Catalog()->allowed.contains("bob"));
  ASSERT_TRUE(store_->RemoveTenant("alice").ok());
  EXPECT_TRUE(store_->Catalog()->allowed.empty());
}

TEST_F(QueueStoreTest, SharesTheJobStoresSchema) {
  auto jobs = JobStore::Open(path_);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->schema_version(), LatestSchemaVersion());
  EXPECT_GE(LatestSchemaVersion(), 6);
}

}  // namespace
}  // namespace dlp::server
