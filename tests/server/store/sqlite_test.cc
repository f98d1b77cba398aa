#include "server/store/sqlite.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

class SqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(dir_.Join("test.db"));
    ASSERT_TRUE(db.ok()) << db.status();
    db_.emplace(std::move(*db));
    ASSERT_TRUE(db_->Exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)").ok());
  }

  testing::TempDir dir_;
  std::optional<Database> db_;
};

// A statement given back is kept, and the next Prepare of the same text takes
// it: the statement is compiled once.
TEST_F(SqliteTest, AStatementIsPreparedOnce) {
  EXPECT_EQ(db_->idle_statements(), 0u);
  { ASSERT_TRUE(db_->Prepare("SELECT k FROM t WHERE k = ?1").ok()); }
  EXPECT_EQ(db_->idle_statements(), 1u);
  auto again = db_->Prepare("SELECT k FROM t WHERE k = ?1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(db_->idle_statements(), 0u);
}

// A statement given back keeps no bindings and no position: the next Prepare
// of the same SQL (the same handle, from the cache) starts afresh.
TEST_F(SqliteTest, AReusedStatementStartsAfresh) {
  for (int k = 1; k <= 3; ++k) {
    auto insert = db_->Prepare("INSERT INTO t (k, v) VALUES (?1, ?2)");
    ASSERT_TRUE(insert.ok()) << insert.status();
    ASSERT_TRUE(insert->Bind(1, int64_t{k}).Bind(2, std::to_string(k * 10)).Run().ok());
  }
  {
    auto select = db_->Prepare("SELECT v FROM t ORDER BY k");
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(*select->Step());
    EXPECT_EQ(select->Text(0), "10");  // left in the middle of its rows
  }
  auto again = db_->Prepare("SELECT v FROM t ORDER BY k");
  ASSERT_TRUE(again.ok());
  std::string all;
  while (*again->Step()) all += again->Text(0) + " ";
  EXPECT_EQ(all, "10 20 30 ");

  // Unbound parameters are NULL again.
  auto insert = db_->Prepare("INSERT INTO t (k, v) VALUES (?1, ?2)");
  ASSERT_TRUE(insert.ok());
  ASSERT_TRUE(insert->Bind(1, int64_t{4}).Run().ok());
  auto null_v = db_->Prepare("SELECT v IS NULL FROM t WHERE k = 4");
  ASSERT_TRUE(null_v.ok() && *null_v->Step());
  EXPECT_EQ(null_v->Int(0), 1);
}

// Two statements of one SQL text alive at once are two handles (a nested
// query over the same table), each with its own rows.
TEST_F(SqliteTest, OneSqlTextTwiceAtOnce) {
  ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES (1, 'a'), (2, 'b')").ok());
  auto outer = db_->Prepare("SELECT k FROM t ORDER BY k");
  ASSERT_TRUE(outer.ok());
  int pairs = 0;
  while (*outer->Step()) {
    auto inner = db_->Prepare("SELECT k FROM t ORDER BY k");
    ASSERT_TRUE(inner.ok());
    while (*inner->Step()) ++pairs;
  }
  EXPECT_EQ(pairs, 4);
}

// A statement prepared before a schema change sees the new schema (SQLite
// prepares it again), and a connection with idle statements closes cleanly
// (a leaked handle would keep the file open: sqlite3_close refuses).
TEST_F(SqliteTest, CachedStatementsFollowTheSchemaAndClose) {
  { ASSERT_TRUE(db_->Prepare("SELECT * FROM t").ok()); }
  ASSERT_TRUE(db_->Exec("ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 7").ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t (k, v) VALUES (1, 'x')").ok());
  {
    auto select = db_->Prepare("SELECT * FROM t");
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(*select->Step());
    EXPECT_EQ(select->Int(2), 7);
  }
  db_.reset();
  auto reopened = Database::Open(dir_.Join("test.db"));
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(*reopened->QueryInt("SELECT COUNT(*) FROM t"), 1);
}

// Many distinct texts (SQL built from a request's filters) keep at most
// kMaxIdle statements; the rest are finalized, and every text still works.
TEST_F(SqliteTest, DistinctTextsAreBounded) {
  for (size_t i = 0; i < 3 * StatementCache::kMaxIdle; ++i) {
    auto select = db_->Prepare("SELECT " + std::to_string(i));
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(*select->Step());
    EXPECT_EQ(select->Int(0), static_cast<int64_t>(i));
  }
  EXPECT_EQ(db_->idle_statements(), StatementCache::kMaxIdle);
}

TEST_F(SqliteTest, AnEmptyStatementIsAnError) {
  auto empty = db_->Prepare("-- nothing");
  EXPECT_FALSE(empty.ok());
}

}  // namespace
}  // namespace dlp::server
