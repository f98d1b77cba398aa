// The store's fair-share history: saved as a whole, read back exactly, kept
// across connections.
#include <gtest/gtest.h>

#include "server/store/job_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

const absl::Time kAt = absl::FromUnixMicros(1'700'000'000'123'456);

TEST(QueueHistoryStoreTest, NothingSavedReadsBackAsNone) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.Join("dlpd.db"));
  ASSERT_TRUE(store.ok()) << store.status();
  auto loaded = store->LoadQueueHistory();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(*loaded);
}

TEST(QueueHistoryStoreTest, ASaveReplacesTheLastAndOutlivesTheConnection) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  const std::vector<QueueHistoryRow> rows = {
      {"nlp", "cpu", 1500.25}, {"vision", "gpu", 3999.5}, {"vision", "gpu.h100", 2000}};
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(store->SaveQueueHistory(kAt - absl::Hours(1), {{"gone", "cpu", 1}}).ok());
    ASSERT_TRUE(store->SaveQueueHistory(kAt, rows).ok());
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto loaded = store->LoadQueueHistory();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(*loaded);
  EXPECT_EQ((*loaded)->at, kAt);
  EXPECT_EQ((*loaded)->rows, rows);
  // An empty history still records when it was saved.
  ASSERT_TRUE(store->SaveQueueHistory(kAt + absl::Minutes(1), {}).ok());
  loaded = store->LoadQueueHistory();
  ASSERT_TRUE(loaded.ok() && *loaded);
  EXPECT_EQ((*loaded)->at, kAt + absl::Minutes(1));
  EXPECT_TRUE((*loaded)->rows.empty());
}

}  // namespace
}  // namespace dlp::server
