// JobStore's fair-share history: one row per queue and resource, replaced as
// a whole on every save.
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {

absl::Status JobStore::SaveQueueHistory(absl::Time at, const std::vector<QueueHistoryRow>& rows) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_RETURN_IF_ERROR(db_.Exec("DELETE FROM queue_history"));
  // Nothing to remember still records when: the next start decays from it.
  std::vector<QueueHistoryRow> saved = rows;
  if (saved.empty()) saved.push_back({"", "", 0});
  DLP_ASSIGN_OR_RETURN(Statement insert,
                       db_.Prepare("INSERT INTO queue_history (queue, resource, average, at_us) "
                                   "VALUES (?,?,?,?)"));
  for (const QueueHistoryRow& row : saved) {
    insert.Reset();
    insert.Bind(1, row.queue).Bind(2, row.resource).BindDouble(3, row.average);
    insert.Bind(4, static_cast<int64_t>(absl::ToUnixMicros(at)));
    DLP_RETURN_IF_ERROR(insert.Run());
  }
  return tx.Commit();
}

absl::StatusOr<std::optional<JobStore::QueueHistory>> JobStore::LoadQueueHistory() {
  DLP_ASSIGN_OR_RETURN(
      Statement select,
      db_.Prepare("SELECT queue, resource, average, at_us FROM queue_history ORDER BY queue, "
                  "resource"));
  std::optional<QueueHistory> out;
  while (true) {
    DLP_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    if (!out) out.emplace();
    out->at = absl::FromUnixMicros(select.Int(3));
    if (select.Text(0).empty()) continue;  // the marker of an empty history
    out->rows.push_back({select.Text(0), select.Text(1), select.Double(2)});
  }
  return out;
}

}  // namespace dlp::server
