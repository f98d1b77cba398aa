// A caller's jobs: finding one by id or name, reading, listing, waiting on
// and cancelling them, and their latest usage.
#include "server/controller/controller.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/status.h"

namespace dlp::server {

namespace {

// The job `id` names: its id, or its name when no other of the caller's jobs
// has it (as Slurm's and kubectl's users expect); FailedPrecondition listing
// the ids when several do.
absl::StatusOr<int64_t> JobSeqOf(JobStore& store, const std::string& id,
                                 const std::string& tenant) {
  int64_t seq = 0;
  if (absl::SimpleAtoi(id, &seq)) {
    if (seq <= 0) return absl::NotFoundError(absl::StrCat("job ", id, " not found"));
    return seq;
  }
  constexpr int kShown = 5;
  DLP_ASSIGN_OR_RETURN(std::vector<int64_t> named, store.JobsNamed(tenant, id, kShown + 1));
  if (named.empty()) return absl::NotFoundError(absl::StrCat("no job named ", id));
  if (named.size() == 1) return named[0];
  const bool more = named.size() > kShown;
  named.resize(std::min<size_t>(named.size(), kShown));
  return absl::FailedPreconditionError(
      absl::StrCat("several jobs are named ", id, " (", absl::StrJoin(named, ", "),
                   more ? ", ..." : "", "): give the job's id"));
}

absl::StatusOr<JobRecord> FindJob(JobStore& store, const std::string& id,
                                  const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(const int64_t seq, JobSeqOf(store, id, tenant));
  absl::StatusOr<JobRecord> record = store.Get(seq);
  if (!record.ok() || (!tenant.empty() && record->job.tenant != tenant)) {
    if (!record.ok() && !absl::IsNotFound(record.status())) return record.status();
    return absl::NotFoundError(absl::StrCat("job ", id, " not found"));
  }
  return record;
}

}  // namespace

absl::StatusOr<JobRecord> Controller::GetLocked(const std::string& id, const std::string& tenant) {
  return FindJob(store_, id, tenant);
}

std::unique_lock<std::mutex> Controller::LockReader(JobStore*& store) {
  if (reader_) {
    store = &*reader_;
    return std::unique_lock<std::mutex>(read_mu_);
  }
  store = &store_;
  return std::unique_lock<std::mutex>(mu_);
}

absl::StatusOr<JobRecord> Controller::Read(const std::string& id, const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(JobRecord record, FindJob(*store, id, tenant));
  board_.Overlay(record);
  return record;
}

absl::StatusOr<Job> Controller::Get(const std::string& id, const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));
  return record.job;
}

absl::StatusOr<std::vector<Job>> Controller::List(const ListFilter& filter,
                                                  const std::string& tenant, bool summary) {
  StoreFilter f;
  f.state = filter.state;
  f.queue = filter.queue;
  f.tenant = tenant;
  f.before = filter.before;
  f.limit = filter.limit;
  f.labels = filter.labels;
  f.summary = summary;
  std::vector<JobRecord> records;
  {
    JobStore* store = nullptr;
    std::unique_lock<std::mutex> lock = LockReader(store);
    DLP_ASSIGN_OR_RETURN(records, store->List(f));
  }
  std::vector<Job> jobs;
  jobs.reserve(records.size());
  board_.Overlay(records);
  for (JobRecord& r : records) jobs.push_back(std::move(r.job));
  return jobs;
}

absl::StatusOr<Job> Controller::Cancel(const std::string& id, const std::string& tenant,
                                       const std::string& reason, JobState final_state) {
  std::unique_lock<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  changed_.wait(lock, [&] { return !starting_.contains(record.seq); });
  auto active = active_.find(record.seq);
  if (active == active_.end()) return record.job;  // terminal: unchanged
  record = active->second;
  std::vector<Event> events;
  if (record.job.state == JobState::kQueued) {
    record.job.state = final_state;
    record.job.reason = reason.empty() ? "cancelled before it started" : reason;
    record.job.finished = absl::Now();
    for (JobReplica& r : record.job.replicas) r.state = final_state;
    events.push_back(
        {*record.job.finished, std::string(JobStateName(final_state)), record.job.reason});
  } else {
    executor_.RequestStop(record, final_state, reason.empty() ? "cancelled by user" : reason,
                          events);
  }
  if (events.empty()) return record.job;
  std::vector<JobChange> change;
  change.push_back({record, std::move(events)});
  DLP_RETURN_IF_ERROR(Commit(std::move(change)));
  work_ = true;  // the loop signals the runner
  poll_now_ = true;
  wake_.notify_all();
  return record.job;
}

absl::StatusOr<Job> Controller::Wait(const std::string& id, const std::string& tenant,
                                     absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    uint64_t seen = 0;
    bool stopping = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = generation_;
      stopping = stopping_;
    }
    DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));
    if (IsTerminal(record.job.state) || stopping || absl::Now() >= deadline) return record.job;
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_until(lock, absl::ToChronoTime(deadline),
                        [&] { return generation_ != seen || stopping_; });
  }
}

absl::StatusOr<std::vector<Event>> Controller::Events(const std::string& id,
                                                      const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(JobRecord record, FindJob(*store, id, tenant));
  return store->Events(record.seq);
}

absl::StatusOr<std::vector<ReplicaUsage>> Controller::Usage(const std::string& id,
                                                            const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(JobRecord record, FindJob(*store, id, tenant));
  return store->LatestUsage(record.seq);
}

}  // namespace dlp::server
