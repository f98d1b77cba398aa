// The labels column: summaries read without parsing specs list the same as
// full listings, label filters page in SQL, and a store from before the
// column gets it filled from its specs, losing nothing.
#include "server/store/job_labels.h"

#include <gtest/gtest.h>

#include "dlp/api_codec.h"
#include "dlp/codec.h"
#include "server/controller/controller.h"
#include "server/store/job_records.h"
#include "server/store/job_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

// What GET /v1/jobs?fields=summary answers for each record.
std::vector<std::string> Summaries(const std::vector<JobRecord>& records) {
  std::vector<std::string> out;
  for (const JobRecord& r : records) {
    out.push_back(JobSummaryToJson(r.job));
  }
  return out;
}

std::vector<std::string> Ids(const std::vector<JobRecord>& records) {
  std::vector<std::string> out;
  for (const JobRecord& r : records) out.push_back(r.job.id);
  return out;
}

// As a dlpd without bounds wrote it: 2^62 + 1 bytes does not parse back.
constexpr absl::string_view kUnreadableSpec =
    "'{\"name\":\"broken\",\"labels\":{\"team\":\"vision\"},\"replicas\":[{\"role\":\"worker\","
    "\"count\":2,\"command\":[\"x\"],\"resources\":{\"memory\":\"4611686018427387905\"}}]}'";

// Jobs with labels of every shape, some finished, and one whose spec no
// longer reads back.
void Fill(JobStore& store) {
  ASSERT_TRUE(store.Insert(NewRecord("plain")).ok());
  ASSERT_TRUE(
      store.Insert(NewRecord("vision", "default", {{"team", "vision"}, {"stage", "train"}})).ok());
  ASSERT_TRUE(store
                  .Insert(NewRecord(
                      "odd", "default",
                      {{"app.kubernetes.io/name", "trainer.v2"}, {"team", "vision"}, {"note", ""}}))
                  .ok());
  auto done = store.Insert(NewRecord("done", "default", {{"team", "nlp"}}));
  ASSERT_TRUE(done.ok());
  done->job.state = JobState::kSucceeded;
  done->job.exit_code = 0;
  done->job.finished = absl::Now();
  ASSERT_TRUE(store.Update(*done).ok());
  ASSERT_TRUE(store.Insert(NewRecord("broken", "default", {{"team", "vision"}})).ok());
}

void BreakSpec(const std::string& path, int64_t id) {
  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->Exec(absl::StrCat("UPDATE jobs SET spec = ", kUnreadableSpec,
                                    ", labels = NULL WHERE id = ", id))
                  .ok());
}

TEST(JobLabelsTest, ColumnRoundTripsAndRefusesWhatIsNotAnObjectOfStrings) {
  const Labels labels = {{"a.b/c", "x \"y\" \\ z"}, {"team", "ünï"}, {"empty", ""}};
  auto back = ReadLabelsColumn(LabelsColumn(labels));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, labels);
  EXPECT_EQ(LabelsColumn({}), "{}");
  for (const char* bad : {"[]", "{\"a\":1}", "not json"}) {
    EXPECT_FALSE(ReadLabelsColumn(bad).ok()) << bad;
  }
}

TEST(JobLabelsTest, SummariesReadFromTheColumnListAsTheFullListing) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Fill(*store);
  BreakSpec(path, 5);
  auto full = store->List({});
  StoreFilter summary;
  summary.summary = true;
  auto summaries = store->List(summary);
  ASSERT_TRUE(full.ok() && summaries.ok());
  ASSERT_EQ(full->size(), 5u);
  EXPECT_EQ(Summaries(*summaries), Summaries(*full));
  EXPECT_TRUE((*summaries)[0].job.spec.replicas.empty()) << "a summary's spec is not parsed";
  EXPECT_EQ((*summaries)[2].job.spec.name, "odd");
  EXPECT_NE((*summaries)[4].quarantine, "") << "a spec that does not read back is still seen";
  EXPECT_EQ((*summaries)[4].job.reason, (*full)[4].job.reason);
}

TEST(JobLabelsTest, LabelFiltersPageInTheStore) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Fill(*store);
  BreakSpec(path, 5);  // its labels no longer count: it has none
  for (bool summary : {false, true}) {
    StoreFilter vision;
    vision.summary = summary;
    vision.labels = {{"team", "vision"}};
    EXPECT_EQ(Ids(*store->List(vision)), (std::vector<std::string>{"2", "3"}));
    vision.limit = 1;
    EXPECT_EQ(Ids(*store->List(vision)), (std::vector<std::string>{"3"}));
    vision.before = 3;
    EXPECT_EQ(Ids(*store->List(vision)), (std::vector<std::string>{"2"}));
    StoreFilter both;
    both.summary = summary;
    both.labels = {{"team", "vision"}, {"stage", "train"}};
    EXPECT_EQ(Ids(*store->List(both)), (std::vector<std::string>{"2"}));
    StoreFilter odd;
    odd.summary = summary;
    odd.labels = {{"app.kubernetes.io/name", "trainer.v2"}};
    EXPECT_EQ(Ids(*store->List(odd)), (std::vector<std::string>{"3"}));
    odd.labels = {{"app.kubernetes.io/name", "trainer"}};
    EXPECT_TRUE(store->List(odd)->empty());
    odd.labels = {{"note", ""}};
    EXPECT_EQ(Ids(*store->List(odd)), (std::vector<std::string>{"3"}));
    odd.labels = {{"app.kubernetes.io", "trainer.v2"}};
    EXPECT_TRUE(store->List(odd)->empty());
    StoreFilter done;
    done.summary = summary;
    done.labels = {{"team", "nlp"}};
    done.state = JobState::kSucceeded;
    EXPECT_EQ(Ids(*store->List(done)), (std::vector<std::string>{"4"}));
  }
}

// A store from before the column (schema 11): opening it adds the column and
// fills it from each spec; every row reads back as before, specs unchanged.
TEST(JobLabelsTest, AnOlderStoreGetsTheColumnFilledFromItsSpecs) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  std::vector<std::string> before;
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Fill(*store);
    BreakSpec(path, 5);
    auto jobs = store->List({});
    ASSERT_TRUE(jobs.ok());
    for (const JobRecord& r : *jobs) {
      before.push_back(JobToJson(r.job) + r.quarantine);
    }
  }
  std::vector<std::string> specs;
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("ALTER TABLE jobs DROP COLUMN labels; "
                         "ALTER TABLE jobs ADD COLUMN gpus TEXT NOT NULL DEFAULT ''; "
                         "PRAGMA user_version = 11")
                    .ok());
    auto s = db->Prepare("SELECT spec FROM jobs ORDER BY id");
    ASSERT_TRUE(s.ok());
    while (*s->Step()) specs.push_back(s->Text(0));
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(store->schema_version(), LatestSchemaVersion());
  {
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    auto s = db->Prepare("SELECT spec, labels FROM jobs ORDER BY id");
    ASSERT_TRUE(s.ok());
    std::vector<std::string> after_specs;
    std::vector<std::string> labels;
    while (*s->Step()) {
      after_specs.push_back(s->Text(0));
      labels.push_back(s->IsNull(1) ? "NULL" : s->Text(1));
    }
    EXPECT_EQ(after_specs, specs) << "a spec changed";
    EXPECT_EQ(labels, (std::vector<std::string>{
                          "{}", R"({"stage":"train","team":"vision"})",
                          R"({"app.kubernetes.io/name":"trainer.v2","note":"","team":"vision"})",
                          R"({"team":"nlp"})", "NULL"}));
  }
  std::vector<std::string> after;
  auto full = store->List({});
  ASSERT_TRUE(full.ok());
  for (const JobRecord& r : *full) {
    after.push_back(JobToJson(r.job) + r.quarantine);
  }
  EXPECT_EQ(after, before);
  StoreFilter summary;
  summary.summary = true;
  EXPECT_EQ(Summaries(*store->List(summary)), Summaries(*full));
}

}  // namespace
}  // namespace dlp::server
