#include "server/store/job_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "dlp/status.h"
#include "server/store/job_labels.h"
#include "server/store/placement_codec.h"
#include "server/store/stored_spec.h"

namespace dlp::server {
namespace {

constexpr absl::string_view kJobColumns =
    "id, tenant, queue, priority, name, state, reason, spec, created_us, started_us, "
    "finished_us, exit_code, restart_count, runner_pid, runner_start_time, "
    "stop_requested_us, stop_state, stop_reason, start_attempt, placement, preemptions, "
    "position, estimated_start_us, labels";

constexpr absl::string_view kSelectReplicas =
    "SELECT name, role, role_index, state, exit_code, signal, host, pid, reason FROM replicas "
    "WHERE job_id=? ORDER BY ordinal";

std::optional<int64_t> ToMicros(const std::optional<absl::Time>& t) {
  if (!t) return std::nullopt;
  return absl::ToUnixMicros(*t);
}

std::optional<absl::Time> FromMicros(const std::optional<int64_t>& us) {
  if (!us) return std::nullopt;
  return absl::FromUnixMicros(*us);
}

JobState StateOrQueued(const std::string& name) {
  return ParseJobState(name).value_or(JobState::kQueued);
}

// A row whose spec does not read back: listed, with why, but never run.
void Quarantine(JobRecord& r, const absl::Status& why) {
  std::string message = absl::StrReplaceAll(why.message(), {{"\n", "; "}});
  if (message.size() > 300) message = message.substr(0, 297) + "...";
  r.quarantine = absl::StrCat("quarantined: the stored spec cannot be read back: ", message);
  r.job.reason = r.quarantine;
  r.job.spec = JobSpec();
  r.job.spec.name = r.job.name;
  r.job.spec.queue = r.job.queue;
}

// The spec of a summary: its name, queue and labels, from the labels column;
// false when the row has none (the spec does not read back).
bool ReadSummarySpec(const Statement& s, JobRecord& r) {
  if (s.IsNull(23)) return false;
  absl::StatusOr<Labels> labels = ReadLabelsColumn(s.Text(23));
  if (!labels.ok()) return false;
  r.job.spec.name = r.job.name;
  r.job.spec.queue = r.job.queue;
  r.job.spec.labels = *std::move(labels);
  return true;
}

absl::StatusOr<JobRecord> ReadJobRow(const Statement& s, bool summary) {
  JobRecord r;
  r.seq = s.Int(0);
  r.job.id = std::to_string(r.seq);
  r.job.tenant = s.Text(1);
  r.job.queue = s.Text(2);
  r.job.name = s.Text(4);
  r.job.state = StateOrQueued(s.Text(5));
  r.job.reason = s.Text(6);
  if (summary && ReadSummarySpec(s, r)) {
    // The spec was read back when the column was written.
  } else if (absl::StatusOr<JobSpec> spec = ReadStoredSpec(s.Text(7)); spec.ok()) {
    r.job.spec = *std::move(spec);
  } else {
    Quarantine(r, spec.status());
  }
  r.job.created = absl::FromUnixMicros(s.Int(8));
  r.job.started = FromMicros(s.OptionalInt(9));
  r.job.finished = FromMicros(s.OptionalInt(10));
  if (auto code = s.OptionalInt(11)) r.job.exit_code = static_cast<int>(*code);
  r.job.restart_count = static_cast<int>(s.Int(12));
  r.runner_pid = s.Int(13);
  r.runner_start_time = s.Int(14);
  r.stop_requested_us = s.OptionalInt(15);
  r.stop_state = s.Text(16);
  r.stop_reason = s.Text(17);
  r.start_attempt = s.Int(18);
  ReadStoredPlacement(s.Text(19), r);  // a malformed one reads as none
  r.job.preemptions = static_cast<int>(s.Int(20));
  if (auto position = s.OptionalInt(21)) r.job.position = static_cast<int>(*position);
  r.job.estimated_start = FromMicros(s.OptionalInt(22));
  return r;
}

std::optional<int64_t> OptionalInt(const std::optional<int>& v) {
  if (!v) return std::nullopt;
  return *v;
}

}  // namespace

absl::StatusOr<JobStore> JobStore::Open(const std::string& path) {
  int version = 0;
  DLP_ASSIGN_OR_RETURN(Database db, OpenStore(path, &version));
  DLP_RETURN_IF_ERROR(BackfillLabels(db));
  JobStore store(std::move(db), path);
  store.schema_version_ = version;
  return store;
}

absl::StatusOr<JobStore> JobStore::OpenReader() const {
  DLP_ASSIGN_OR_RETURN(Database db, Database::Open(path_));
  DLP_RETURN_IF_ERROR(db.Exec("PRAGMA query_only=1"));
  JobStore reader(std::move(db), path_);
  reader.schema_version_ = schema_version_;
  return reader;
}

absl::StatusOr<JobRecord> JobStore::Insert(JobRecord record) {
  std::vector<JobRecord> one;
  one.push_back(std::move(record));
  return std::move(InsertAll(std::move(one)).front());
}

std::vector<absl::StatusOr<JobRecord>> JobStore::InsertAll(std::vector<JobRecord> records) {
  std::vector<absl::StatusOr<JobRecord>> out;
  std::vector<std::string> specs(records.size());
  std::vector<size_t> valid;
  for (size_t i = 0; i < records.size(); ++i) {
    absl::StatusOr<std::string> spec = StoredSpecText(records[i].job.spec);
    if (spec.ok()) {
      specs[i] = std::move(*spec);
      valid.push_back(i);
      out.emplace_back(absl::UnknownError("not inserted"));
    } else {
      out.emplace_back(spec.status());
    }
  }
  if (valid.empty()) return out;
  absl::Status status = [&]() -> absl::Status {
    Transaction tx(db_);
    DLP_RETURN_IF_ERROR(tx.begin_status());
    for (size_t i : valid) DLP_RETURN_IF_ERROR(InsertRow(records[i], specs[i]));
    return tx.Commit();
  }();
  for (size_t i : valid) {
    if (status.ok()) {
      out[i] = std::move(records[i]);
    } else {
      out[i] = status;
    }
  }
  return out;
}

absl::Status JobStore::InsertRow(JobRecord& record, const std::string& spec_text) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("INSERT INTO jobs (tenant, queue, priority, name, state, reason, spec, "
                  "created_us, labels) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  if (!record.job.created) record.job.created = absl::Now();
  s.Bind(1, record.job.tenant)
      .Bind(2, record.job.queue)
      .Bind(3, int64_t{record.job.spec.priority})
      .Bind(4, record.job.name)
      .Bind(5, std::string(JobStateName(record.job.state)))
      .Bind(6, record.job.reason)
      .Bind(7, spec_text)
      .Bind(8, absl::ToUnixMicros(*record.job.created))
      .Bind(9, LabelsColumn(record.job.spec.labels));
  DLP_RETURN_IF_ERROR(s.Run());
  record.seq = db_.LastInsertRowId();
  record.job.id = std::to_string(record.seq);
  DLP_RETURN_IF_ERROR(WriteReplicas(record));
  return AddEvent(record.seq,
                  {*record.job.created, "Submitted", "job " + record.job.id + " submitted"});
}

absl::Status JobStore::Update(const JobRecord& r, const std::vector<Event>& events) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_RETURN_IF_ERROR(WriteJob(r, events));
  return tx.Commit();
}

absl::Status JobStore::UpdateAll(const std::vector<JobChange>& changes) {
  if (changes.empty()) return absl::OkStatus();
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  for (const JobChange& c : changes) DLP_RETURN_IF_ERROR(WriteJob(c.record, c.events));
  return tx.Commit();
}

absl::Status JobStore::WriteJob(const JobRecord& r, const std::vector<Event>& events) {
  {
    DLP_ASSIGN_OR_RETURN(
        Statement s,
        db_.Prepare("UPDATE jobs SET state=?, reason=?, started_us=?, finished_us=?, "
                    "exit_code=?, restart_count=?, runner_pid=?, runner_start_time=?, "
                    "stop_requested_us=?, stop_state=?, stop_reason=?, start_attempt=?, "
                    "placement=?, preemptions=?, position=?, estimated_start_us=? WHERE id=?"));
    s.Bind(1, std::string(JobStateName(r.job.state)))
        .Bind(2, r.job.reason)
        .Bind(3, ToMicros(r.job.started))
        .Bind(4, ToMicros(r.job.finished))
        .Bind(5, OptionalInt(r.job.exit_code))
        .Bind(6, int64_t{r.job.restart_count})
        .Bind(7, r.runner_pid)
        .Bind(8, r.runner_start_time)
        .Bind(9, r.stop_requested_us)
        .Bind(10, r.stop_state)
        .Bind(11, r.stop_reason)
        .Bind(12, r.start_attempt)
        .Bind(13, StoredPlacement(r))
        .Bind(14, int64_t{r.job.preemptions})
        .Bind(15, OptionalInt(r.job.position))
        .Bind(16, ToMicros(r.job.estimated_start))
        .Bind(17, r.seq);
    DLP_RETURN_IF_ERROR(s.Run());
  }
  DLP_RETURN_IF_ERROR(WriteReplicas(r));
  for (const Event& e : events) DLP_RETURN_IF_ERROR(AddEvent(r.seq, e));
  return absl::OkStatus();
}

absl::Status JobStore::UpdateExplanations(const std::vector<QueuedExplanation>& explanations) {
  if (explanations.empty()) return absl::OkStatus();
  // Explanations are recomputed every round: this commit needs no fsync of
  // its own (WAL, synchronous=NORMAL: atomic, made durable by the next full one).
  DLP_RETURN_IF_ERROR(db_.Exec("PRAGMA synchronous=NORMAL"));
  absl::Status status = [&]() -> absl::Status {
    Transaction tx(db_);
    DLP_RETURN_IF_ERROR(tx.begin_status());
    DLP_ASSIGN_OR_RETURN(
        Statement s,
        db_.Prepare("UPDATE jobs SET reason=?, position=?, estimated_start_us=? WHERE id=? "
                    "AND state='Queued'"));
    for (const QueuedExplanation& e : explanations) {
      s.Reset()
          .Bind(1, e.reason)
          .Bind(2, OptionalInt(e.position))
          .Bind(3, ToMicros(e.estimated_start))
          .Bind(4, e.seq);
      DLP_RETURN_IF_ERROR(s.Run());
    }
    return tx.Commit();
  }();
  absl::Status restored = db_.Exec("PRAGMA synchronous=FULL");
  return status.ok() ? restored : status;
}

absl::Status JobStore::WriteReplicas(const JobRecord& r) {
  {
    DLP_ASSIGN_OR_RETURN(Statement del, db_.Prepare("DELETE FROM replicas WHERE job_id=?"));
    del.Bind(1, r.seq);
    DLP_RETURN_IF_ERROR(del.Run());
  }
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare(
          "INSERT INTO replicas (job_id, ordinal, name, role, role_index, state, "
          "exit_code, signal, host, pid, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (size_t i = 0; i < r.job.replicas.size(); ++i) {
    const JobReplica& rep = r.job.replicas[i];
    Statement& one = s.Reset();
    one.Bind(1, r.seq)
        .Bind(2, static_cast<int64_t>(i))
        .Bind(3, rep.name)
        .Bind(4, rep.role)
        .Bind(5, int64_t{rep.index})
        .Bind(6, std::string(JobStateName(rep.state)))
        .Bind(7, OptionalInt(rep.exit_code))
        .Bind(8, OptionalInt(rep.signal))
        .Bind(9, rep.host)
        .Bind(10, rep.pid)
        .Bind(11, rep.reason);
    DLP_RETURN_IF_ERROR(one.Run());
  }
  return absl::OkStatus();
}

absl::Status JobStore::LoadReplicas(JobRecord& r) {
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(kSelectReplicas));
  return ReadReplicas(s, r);
}

absl::Status JobStore::ReadReplicas(Statement& s, JobRecord& r) {
  s.Reset().Bind(1, r.seq);
  r.job.replicas.clear();
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    JobReplica rep;
    rep.name = s.Text(0);
    rep.role = s.Text(1);
    rep.index = static_cast<int>(s.Int(2));
    rep.state = StateOrQueued(s.Text(3));
    if (auto v = s.OptionalInt(4)) rep.exit_code = static_cast<int>(*v);
    if (auto v = s.OptionalInt(5)) rep.signal = static_cast<int>(*v);
    rep.host = s.Text(6);
    rep.pid = s.Int(7);
    rep.reason = s.Text(8);
    r.job.replicas.push_back(std::move(rep));
  }
  ShowPlacement(r);
  return absl::OkStatus();
}

absl::Status JobStore::AddEvent(int64_t seq, const Event& e) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("INSERT INTO events (job_id, time_us, type, message) VALUES (?, ?, ?, ?)"));
  s.Bind(1, seq).Bind(2, absl::ToUnixMicros(e.time)).Bind(3, e.type).Bind(4, e.message);
  return s.Run();
}

absl::StatusOr<JobRecord> JobStore::Get(int64_t seq) {
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(absl::StrCat("SELECT ", kJobColumns,
                                                             " FROM jobs WHERE id=?")));
  s.Bind(1, seq);
  DLP_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("job ", seq, " not found"));
  DLP_ASSIGN_OR_RETURN(JobRecord r, ReadJobRow(s, /*summary=*/false));
  DLP_RETURN_IF_ERROR(LoadReplicas(r));
  return r;
}

absl::StatusOr<std::vector<JobRecord>> JobStore::List(const StoreFilter& f) {
  std::string sql = absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE 1=1");
  std::vector<std::string> args;
  if (f.state) {
    absl::StrAppend(&sql, " AND state=?");
    args.emplace_back(std::string(JobStateName(*f.state)));
  }
  if (!f.queue.empty()) {
    absl::StrAppend(&sql, " AND queue=?");
    args.push_back(f.queue);
  }
  if (!f.tenant.empty()) {
    absl::StrAppend(&sql, " AND tenant=?");
    args.push_back(f.tenant);
  }
  for (const auto& [key, value] : f.labels) {
    absl::StrAppend(&sql, " AND ", kLabelCondition);
    args.push_back(key);
    args.push_back(value);
  }
  if (f.active_only) absl::StrAppend(&sql, " AND state IN ('Queued','Running')");
  if (f.before > 0) absl::StrAppend(&sql, " AND id<", f.before);
  absl::StrAppend(&sql, " ORDER BY id DESC");
  if (f.limit > 0) absl::StrAppend(&sql, " LIMIT ", f.limit);
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(sql));
  for (size_t i = 0; i < args.size(); ++i) s.Bind(static_cast<int>(i + 1), args[i]);
  std::vector<JobRecord> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    DLP_ASSIGN_OR_RETURN(JobRecord r, ReadJobRow(s, f.summary));
    out.push_back(std::move(r));
  }
  std::reverse(out.begin(), out.end());
  // One prepared statement for every job's replicas (preparing is most of the cost).
  DLP_ASSIGN_OR_RETURN(Statement replicas, db_.Prepare(kSelectReplicas));
  for (JobRecord& r : out) DLP_RETURN_IF_ERROR(ReadReplicas(replicas, r));
  return out;
}

absl::StatusOr<std::vector<Event>> JobStore::Events(int64_t seq) {
  DLP_ASSIGN_OR_RETURN(
      Statement s,
      db_.Prepare("SELECT time_us, type, message FROM events WHERE job_id=? ORDER BY id"));
  s.Bind(1, seq);
  std::vector<Event> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({absl::FromUnixMicros(s.Int(0)), s.Text(1), s.Text(2)});
  }
  return out;
}

}  // namespace dlp::server
