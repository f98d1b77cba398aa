// Controller::Delete (an ended job's files, then its record) and NoteEvent.
#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/controller/controller.h"

namespace dlp::server {

absl::StatusOr<Job> Controller::Delete(const std::string& id, const std::string& tenant,
                                       bool force) {
  std::unique_lock<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  // A job of a pipeline or sweep first: cancelling it would not help, so
  // --force must not end it either.
  DLP_RETURN_IF_ERROR(store_.CheckDeletable(record.seq));
  changed_.wait(lock, [&] { return !starting_.contains(record.seq); });
  if (force && active_.contains(record.seq)) {
    lock.unlock();
    DLP_RETURN_IF_ERROR(Cancel(record.job.id, tenant).status());
    DLP_RETURN_IF_ERROR(WaitEnded({record.job.id}, tenant, kForcedDeleteWait,
                                  absl::StrCat("job ", record.job.id)));
    lock.lock();
    DLP_ASSIGN_OR_RETURN(record, GetLocked(id, tenant));  // as it ended
  }
  if (active_.contains(record.seq)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", record.job.id, " is ", std::string(JobStateName(active_.at(record.seq).job.state)),
        ": cancel it first (dlp cancel ", record.job.id, ")"));
  }
  DLP_RETURN_IF_ERROR(CheckNoDependents(record, {}));
  // Files first: while any remain (a job of the tenant writing into them),
  // the record stays, so the disk quota still counts them. An ended job never
  // runs again, so the loop need not wait for a large tree to go.
  lock.unlock();
  DLP_RETURN_IF_ERROR(executor_.RemoveJobFiles(record.job.id));
  lock.lock();
  DLP_RETURN_IF_ERROR(store_.Delete(record.seq));
  return record.job;
}

absl::Status Controller::NoteEvent(const std::string& id, const Event& event) {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, ""));
  return store_.AddEvent(record.seq, event);
}

}  // namespace dlp::server
