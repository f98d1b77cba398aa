// JobStore::Delete: a finished job's rows, gone in one commit.
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
          absl::StrCat("job ", seq, " belongs to pipeline ", s.Int(0), ": it is kept with it"));
    }
  }
  DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare("SELECT sweep FROM sweep_trials WHERE job=?"));
  DLP_ASSIGN_OR_RETURN(bool member, s.Bind(1, std::to_string(seq)).Step());
  if (member) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", seq, " belongs to sweep ", s.Int(0), ": it is kept with it"));
  }
  return absl::OkStatus();
}

absl::Status JobStore::Delete(int64_t seq) {
  Transaction tx(db_);
  DLP_RETURN_IF_ERROR(tx.begin_status());
  DLP_RETURN_IF_ERROR(CheckDeletable(seq));
  for (const char* sql :
       {"DELETE FROM usage_samples WHERE job_id=?", "DELETE FROM events WHERE job_id=?",
        "DELETE FROM replicas WHERE job_id=?", "DELETE FROM jobs WHERE id=?"}) {
    DLP_ASSIGN_OR_RETURN(Statement s, db_.Prepare(sql));
    DLP_RETURN_IF_ERROR(s.Bind(1, seq).Run());
  }
  return tx.Commit();
}

}  // namespace dlp::server
