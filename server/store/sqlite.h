// A small RAII wrapper over SQLite's C API: a connection and prepared
// statements. Errors become absl::Status with SQLite's message. Not thread-safe:
// callers serialise access to one Database.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dlp::server {

// A connection's prepared statements, kept by SQL text once their Statement
// is gone: preparing parses and plans the SQL again each time, which behind a
// backlog was 7 % of dlpd's CPU.
class StatementCache {
 public:
  StatementCache() = default;
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;
  ~StatementCache();

  // An idle statement for `sql`, or nullptr.
  sqlite3_stmt* Take(absl::string_view sql);
  // Resets `stmt` and keeps it (SQL built from a request's filters varies, so
  // at most kMaxIdle are kept; the rest are finalized).
  void Give(sqlite3_stmt* stmt);

  size_t size() const { return count_; }

  static constexpr size_t kMaxIdle = 128;

 private:
  absl::flat_hash_map<std::string, std::vector<sqlite3_stmt*>> idle_;
  size_t count_ = 0;
};

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, StatementCache* cache)
      : db_(db), stmt_(stmt), cache_(cache) {}
  ~Statement() {
    if (stmt_ != nullptr) cache_->Give(stmt_);
  }
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_), cache_(other.cache_) {
    other.stmt_ = nullptr;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, absl::string_view value);
  Statement& Bind(int index, const std::optional<int64_t>& value);
  Statement& BindNull(int index);
  // Named apart from Bind so that an int argument never becomes ambiguous.
  Statement& BindDouble(int index, double value);

  // Makes the statement ready to run again with new parameters.
  Statement& Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    return *this;
  }

  // Advances one row: true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Runs to completion, ignoring rows.
  absl::Status Run();

  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  std::optional<int64_t> OptionalInt(int column) const;
  double Double(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string Text(int column) const;
  bool IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  StatementCache* cache_;
  absl::Status bind_error_;
};

class Database {
 public:
  // Opens (creating) the file at `path`.
  static absl::StatusOr<Database> Open(const std::string& path);
  ~Database();
  Database(Database&& other) noexcept : db_(other.db_), cache_(std::move(other.cache_)) {
    other.db_ = nullptr;
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements without parameters.
  absl::Status Exec(absl::string_view sql);
  // A Statement must not outlive its Database.
  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  // The value of a single-integer query such as "PRAGMA user_version".
  absl::StatusOr<int64_t> QueryInt(absl::string_view sql);
  int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  // Statements prepared and kept for the next Prepare of their text.
  size_t idle_statements() const { return cache_->size(); }

 private:
  explicit Database(sqlite3* db) : db_(db), cache_(std::make_unique<StatementCache>()) {}
  sqlite3* db_;
  // On the heap, so that a moved Database's statements find it.
  std::unique_ptr<StatementCache> cache_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  const absl::Status& begin_status() const { return begin_status_; }
  absl::Status Commit();

 private:
  Database& db_;
  absl::Status begin_status_;
  bool done_ = false;
};

}  // namespace dlp::server
