#include "server/store/sqlite.h"

#include "absl/strings/str_cat.h"

namespace dlp::server {
namespace {

absl::Status SqliteError(sqlite3* db, absl::string_view what) {
  return absl::InternalError(absl::StrCat("sqlite: ", what, ": ", sqlite3_errmsg(db)));
}

}  // namespace

StatementCache::~StatementCache() {
  for (auto& [sql, stmts] : idle_) {
    for (sqlite3_stmt* stmt : stmts) sqlite3_finalize(stmt);
  }
}

sqlite3_stmt* StatementCache::Take(absl::string_view sql) {
  auto it = idle_.find(sql);
  if (it == idle_.end() || it->second.empty()) return nullptr;
  sqlite3_stmt* stmt = it->second.back();
  it->second.pop_back();
  --count_;
  return stmt;
}

void StatementCache::Give(sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  if (count_ >= kMaxIdle) {
    sqlite3_finalize(stmt);
    return;
  }
  idle_[sqlite3_sql(stmt)].push_back(stmt);
  ++count_;
}

Statement& Statement::Bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = SqliteError(db_, "bind");
  }
  return *this;
}

Statement& Statement::Bind(int index, absl::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK &&
      bind_error_.ok()) {
    bind_error_ = SqliteError(db_, "bind");
  }
  return *this;
}

Statement& Statement::Bind(int index, const std::optional<int64_t>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

Statement& Statement::BindDouble(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK && bind_error_.ok()) {
    bind_error_ = SqliteError(db_, "bind");
  }
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, sqlite3_sql(stmt_));
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

std::optional<int64_t> Statement::OptionalInt(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt_, column);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

absl::StatusOr<Database> Database::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = absl::InternalError(
        absl::StrCat("sqlite: cannot open ", path, ": ",
                     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_close(db);
    return status;
  }
  sqlite3_busy_timeout(db, 5000);
  return Database(db);
}

Database::~Database() {
  cache_.reset();  // its statements first: a connection with statements does not close
  if (db_ != nullptr) sqlite3_close(db_);
}

absl::Status Database::Exec(absl::string_view sql) {
  char* error = nullptr;
  std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    absl::Status status =
        absl::InternalError(absl::StrCat("sqlite: ", error ? error : "error", " in: ", sql));
    sqlite3_free(error);
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Statement> Database::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = cache_->Take(sql);
  if (stmt == nullptr &&
      sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, sql);
  }
  // An empty statement (only a comment) has no handle and nothing to keep.
  if (stmt == nullptr) return SqliteError(db_, absl::StrCat("no statement in: ", sql));
  return Statement(db_, stmt, cache_.get());
}

absl::StatusOr<int64_t> Database::QueryInt(absl::string_view sql) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat("sqlite: no row for ", sql));
  return stmt->Int(0);
}

Transaction::Transaction(Database& db) : db_(db) { begin_status_ = db_.Exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_ && begin_status_.ok()) db_.Exec("ROLLBACK").IgnoreError();
}

absl::Status Transaction::Commit() {
  absl::Status status = db_.Exec("COMMIT");
  // A failed COMMIT (busy, disk full) may leave the transaction open: the
  // destructor then rolls it back, so that the connection can begin again.
  done_ = status.ok();
  return status;
}

}  // namespace dlp::server
