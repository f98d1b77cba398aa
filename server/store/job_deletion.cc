// JobStore::Delete and DeleteGroup: finished jobs' rows (and a pipeline's or
// sweep's), gone in one commit.
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/store/job_store.h"

namespace dlp::server {

absl::Status JobStore::CheckDeletable(int64_t seq) {
  // A member of a pipeline or sweep stays: its DAG or leaderboard would lose a node.
  {
    DLP_ASSIGN_OR_RETURN(Statement s,
                         db_.Prepare("SELECT pipeline_id FROM pipeline_jobs WHERE job_id=?"));
    DLP_ASSIGN_OR_RETURN(bool member, s.Bind(1, seq).Step());
    if (member) {
      return absl::FailedPreconditionError(
          absl::StrCat("job ", seq, " belongs to pipeline ", s.Int(0),
                       ": it is deleted with it (dlp pipeline delete ", s.Int(0), ")"));
    }
  }
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare("SELECT sweep FROM sweep_trials WHERE job=?"));
  DLP_ASSIGN_OR_RETURN(bool member, s.Bind(1, std::to_string(seq)).Step());
  if (member) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", seq, " belongs to sweep ", s.Int(0),
                     ": it is deleted with it (dlp sweep delete ", s.Int(0), ")"));
  }
  return absl::OkStatus();
}

absl::Status JobStore::DeleteJobRows(int64_t seq) {
  for (const char* sql :
       {"DELETE FROM usage_samples WHERE job_id=?", "DELETE FROM events WHERE job_id=?",
        "DELETE FROM replicas WHERE job_id=?", "DELETE FROM jobs WHERE id=?"}) {
    DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(sql));
    DLP_RETURN_IF_ERROR(s.Bind(1, seq).Run());
  }
  return absl::OkStatus();
}

absl::Status JobStore::Delete(int64_t seq) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_RETURN_IF_ERROR(CheckDeletable(seq));
  DLP_RETURN_IF_ERROR(DeleteJobRows(seq));
  return tx.Commit();
}

absl::Status JobStore::DeleteGroup(const JobGroup& group, const std::vector<int64_t>& jobs) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  // The sweep's tables are the SweepStore's; they live in this file, so the
  // sweep and its trials' jobs go in the same commit.
  const std::vector<const char*> group_rows =
      group.kind == JobGroup::Kind::kPipeline
          ? std::vector<const char*>{"DELETE FROM pipeline_jobs WHERE pipeline_id=?",
                                     "DELETE FROM pipelines WHERE id=?"}
          : std::vector<const char*>{"DELETE FROM sweep_trial_stops WHERE sweep=?",
                                     "DELETE FROM sweep_trials WHERE sweep=?",
                                     "DELETE FROM sweeps WHERE id=?"};
  for (const char* sql : group_rows) {
    DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(sql));
    DLP_RETURN_IF_ERROR(s.Bind(1, group.id).Run());
  }
  for (int64_t seq : jobs) DLP_RETURN_IF_ERROR(DeleteJobRows(seq));
  return tx.Commit();
}

}  // namespace dlp::server
