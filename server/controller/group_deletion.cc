// Controller::DeleteGroup and DeletePipeline: the ended jobs of a pipeline or
// sweep lose their files, then their records go with the group's in one
// commit. Registered models stay (they are copies, in the blob store).
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/status.h"
#include "server/controller/controller.h"
#include "server/support/log.h"

namespace dlp::server {
namespace {

std::string GroupName(const JobGroup& group) {
  return absl::StrCat(group.kind == JobGroup::Kind::kPipeline ? "pipeline " : "sweep ", group.id);
}

}  // namespace

absl::Status Controller::CheckNoDependents(const JobRecord& record,
                                           const std::set<std::string>& deleted_with_it) {
  // A job waiting on this one would lose its dependency and be cancelled
  // (HoldDependents).
  for (const auto& [seq, active] : active_) {
    if (active.job.state != JobState::kQueued || active.start_attempt > 0) continue;
    if (deleted_with_it.contains(active.job.id)) continue;
    for (const JobDependency& d : active.job.spec.depends_on) {
      if (d.job == record.job.id) {
        return absl::FailedPreconditionError(absl::StrCat(
            "job ", active.job.id, " depends on job ", record.job.id, ": delete it once ",
            active.job.id, " has ended"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Controller::WaitEnded(const std::vector<std::string>& ids, const std::string& tenant,
                                   absl::Duration timeout, const std::string& what) {
  const absl::Time deadline = absl::Now() + timeout;
  for (const std::string& id : ids) {
    DLP_ASSIGN_OR_RETURN(Job job, Wait(id, tenant, deadline - absl::Now()));
    if (stopping()) return absl::UnavailableError("dlpd is shutting down");
    if (!IsTerminal(job.state)) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, ": job ", id, " is still ", std::string(JobStateName(job.state)), " ",
          absl::FormatDuration(timeout), " after its cancel; delete it again once it has ended"));
    }
  }
  return absl::OkStatus();
}

absl::Status Controller::DeleteGroup(const JobGroup& group, const std::vector<std::string>& job_ids,
                                     const std::string& tenant) {
  const std::string what = GroupName(group);
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<JobRecord> records;
  std::set<std::string> members;
  for (const std::string& id : job_ids) {
    absl::StatusOr<JobRecord> record = GetLocked(id, tenant);
    if (absl::IsNotFound(record.status())) continue;  // a trial whose job is gone
    DLP_RETURN_IF_ERROR(record.status());
    members.insert(record->job.id);
    records.push_back(*std::move(record));
  }
  for (const JobRecord& record : records) {
    changed_.wait(lock, [&] { return !starting_.contains(record.seq); });
    if (auto active = active_.find(record.seq); active != active_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("job ", record.job.id, " of ", what, " is ",
                       std::string(JobStateName(active->second.job.state)), ": cancel the ",
                       what, " first, or delete it with --force"));
    }
    DLP_RETURN_IF_ERROR(CheckNoDependents(record, members));
  }
  // Files first, as Delete does: while any remain, the records stay.
  lock.unlock();
  for (const JobRecord& record : records) {
    DLP_RETURN_IF_ERROR(executor_.RemoveJobFiles(record.job.id));
  }
  lock.lock();
  std::vector<int64_t> seqs;
  for (const JobRecord& record : records) seqs.push_back(record.seq);
  DLP_RETURN_IF_ERROR(store_.DeleteGroup(group, seqs));
  Log(absl::StrCat(what, " deleted with its ", seqs.size(), " job(s)"));
  return absl::OkStatus();
}

absl::StatusOr<Pipeline> Controller::DeletePipeline(const std::string& id,
                                                    const std::string& tenant, bool force) {
  DLP_ASSIGN_OR_RETURN(Pipeline pipeline, GetPipeline(id, tenant));
  std::vector<std::string> not_ended;
  for (const PipelineJob& j : pipeline.jobs) {
    if (!IsTerminal(j.state)) not_ended.push_back(j.job);
  }
  if (!not_ended.empty()) {
    if (!force) {
      return absl::FailedPreconditionError(absl::StrCat(
          "pipeline ", pipeline.id, " is ", std::string(JobStateName(pipeline.state)), " (job",
          not_ended.size() == 1 ? " " : "s ", absl::StrJoin(not_ended, ", "),
          " not ended): cancel it first (dlp pipeline cancel ", pipeline.id,
          "), or delete it with --force"));
    }
    DLP_RETURN_IF_ERROR(CancelPipeline(id, tenant).status());
    DLP_RETURN_IF_ERROR(
        WaitEnded(not_ended, tenant, kForcedDeleteWait, absl::StrCat("pipeline ", pipeline.id)));
    DLP_ASSIGN_OR_RETURN(pipeline, GetPipeline(id, tenant));  // as it ended
  }
  JobGroup group{JobGroup::Kind::kPipeline, 0};
  if (!absl::SimpleAtoi(pipeline.id, &group.id)) {
    return absl::InternalError(absl::StrCat("pipeline id ", pipeline.id, " is not a number"));
  }
  std::vector<std::string> jobs;
  for (const PipelineJob& j : pipeline.jobs) jobs.push_back(j.job);
  DLP_RETURN_IF_ERROR(DeleteGroup(group, jobs, tenant));
  return pipeline;
}

}  // namespace dlp::server
