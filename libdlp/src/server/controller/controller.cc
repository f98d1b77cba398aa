#include "server/controller/controller.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "server/controller/queue_access.h"
#include "server/controller/snapshot_builder.h"
#include "server/scheduler/gpu_placement.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"
#include "server/support/thread_guard.h"

namespace dlp::server {

std::vector<JobReplica> InitialReplicas(const JobSpec& spec) {
  std::vector<JobReplica> out;
  for (const ReplicaSpec& r : spec.replicas) {
    for (int i = 0; i < r.count; ++i) {
      JobReplica rep;
      rep.name = absl::StrCat(r.role, "-", i);
      rep.role = r.role;
      rep.index = i;
      rep.host = "localhost";
      out.push_back(std::move(rep));
    }
  }
  return out;
}

Controller::Controller(JobStore store, std::unique_ptr<SchedulingPolicy> policy, Executor executor,
                       ControllerOptions options)
    : store_(std::move(store)),
      policy_(std::move(policy)),
      executor_(std::move(executor)),
      options_(options),
      history_(options.fair_share_half_life) {
  executor_.SetTenantReplicaMemory(options.tenant_replica_memory);
}

Controller::~Controller() { Shutdown(); }

absl::Status Controller::Start() {
  // An exited runner is settled, and its resources given out, at once.
  executor_.WatchRunnerExits([this] {
    std::lock_guard<std::mutex> lock(mu_);
    poll_now_ = true;
    work_ = true;
    wake_.notify_one();
  });
  absl::StatusOr<JobStore> reader = store_.OpenReader();
  if (reader.ok()) {
    reader_.emplace(std::move(*reader));
  } else {
    Log(absl::StrCat("reads share the writer's connection: ", reader.status().message()));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    StoreFilter filter;
    filter.active_only = true;
    DLP_ASSIGN_OR_RETURN(std::vector<JobRecord> active, store_.List(filter));
    std::vector<JobChange> changes;
    for (JobRecord& record : active) {
      std::vector<Event> events;
      executor_.Reconcile(record, events);
      if (!record.quarantine.empty()) Quarantine(record, events);
      Log(absl::StrCat("job ", record.job.id, ": ", std::string(JobStateName(record.job.state)),
                       record.job.reason.empty() ? "" : ": ", record.job.reason));
      if (!events.empty()) {
        changes.push_back({std::move(record), std::move(events)});
      } else {
        active_[record.seq] = std::move(record);
      }
    }
    Record(std::move(changes));
    if (history_.enabled()) {
      absl::StatusOr<std::optional<JobStore::QueueHistory>> saved = store_.LoadQueueHistory();
      if (!saved.ok()) {
        Log(absl::StrCat("fair-share history not read back, starting afresh: ",
                         saved.status().message()));
      } else if (*saved) {
        // Over the time dlpd was down the jobs it adopts count as having run.
        history_.Restore((*saved)->at, (*saved)->rows);
      }
    }
    work_ = true;
  }
  loop_ = GuardedThread("controller loop", [this] { Loop(); });
  return absl::OkStatus();
}

void Controller::Quarantine(JobRecord& record, std::vector<Event>& events) {
  Log(absl::StrCat("job ", record.job.id, ": ", record.quarantine));
  const absl::Time now = absl::Now();
  events.push_back({now, "Quarantined", record.quarantine});
  if (record.job.state == JobState::kRunning) {
    executor_.RequestStop(record, JobState::kFailed, record.quarantine, events);
  } else if (record.job.state == JobState::kQueued) {
    record.job.state = JobState::kFailed;
    record.job.finished = now;
    for (JobReplica& r : record.job.replicas) r.state = JobState::kFailed;
  }
}

void Controller::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_ && history_.enabled() && history_.at() != absl::InfinitePast()) {
      Snapshot snapshot = BuildSnapshot(active_, options_.capacity, absl::Now());
      KeepHistory(snapshot, true);
    }
    if (!stopping_) WriteExplanations(/*force=*/true);
    stopping_ = true;
  }
  wake_.notify_all();
  changed_.notify_all();
  if (loop_.joinable()) loop_.join();
}

bool Controller::stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

absl::StatusOr<std::optional<UnixAccount>> Controller::RunAs(const std::string& tenant) const {
  if (tenant.empty() || tenant == kOwnerTenant) return std::nullopt;
  const std::string user =
      options_.unix_user_for_tenant ? options_.unix_user_for_tenant(tenant) : tenant;
  absl::StatusOr<UnixAccount> account = LookupUnixAccount(user);
  if (!account.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tenant ", tenant, ": its jobs cannot run: ", account.status().message()));
  }
  return *account;
}

std::vector<QueueConfig> Controller::ConfiguredQueues() const {
  if (options_.queues == nullptr) return {};
  return options_.queues->Catalog()->queues;
}

std::vector<GpuDevice> Controller::Devices() const {
  Snapshot machine;
  machine.capacity = options_.capacity;
  machine.devices = options_.devices;
  return DevicesOf(machine);
}

std::map<std::string, int64_t> Controller::GpuUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return UseOf(BuildSnapshot(active_, options_.capacity, absl::Now()).running);
}

absl::Status Controller::Admit(const JobSpec& spec, const std::string& tenant) {
  JobRecord candidate;
  candidate.job.tenant = tenant.empty() ? kOwnerTenant : tenant;
  candidate.job.queue = spec.queue.empty() ? "default" : spec.queue;
  candidate.job.spec = spec;
  Snapshot machine;
  machine.capacity = options_.capacity;
  if (options_.queues != nullptr) {
    std::shared_ptr<const QueueCatalog> catalog = options_.queues->Catalog();
    DLP_RETURN_IF_ERROR(
        CheckQueueAccess(*catalog, candidate.job.queue, candidate.job.tenant, spec.priority));
    machine.queues = catalog->queues;
  }
  machine.devices = options_.devices;
  DLP_RETURN_IF_ERROR(policy_->Admit(PendingOf(candidate), machine));
  if (options_.check_disk_quota) DLP_RETURN_IF_ERROR(options_.check_disk_quota(tenant));
  return RunAs(tenant).status();
}

JobRecord Controller::NewRecord(JobSpec spec, const std::string& tenant) const {
  JobRecord record;
  record.job.name = spec.name;
  record.job.tenant = tenant.empty() ? kOwnerTenant : tenant;
  record.job.queue = spec.queue.empty() ? "default" : spec.queue;
  spec.queue = record.job.queue;
  record.job.replicas = InitialReplicas(spec);
  record.job.reason = "waiting to be scheduled";
  record.job.spec = std::move(spec);
  return record;
}

absl::StatusOr<Job> Controller::Submit(JobSpec spec, const std::string& tenant) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  DLP_RETURN_IF_ERROR(ResolveDependsOn(spec, tenant));
  DLP_RETURN_IF_ERROR(Admit(spec, tenant));
  DLP_ASSIGN_OR_RETURN(JobRecord inserted, InsertGrouped(NewRecord(std::move(spec), tenant)));
  return inserted.job;
}

// Group commit (as leveldb's writers queue): each submission joins a queue;
// the one at its front takes every submission queued so far, inserts them in
// one transaction under mu_ and hands each its result, then the next front
// does the same with those that arrived meanwhile. A caller returns only once
// its own row is committed (or refused).
absl::StatusOr<JobRecord> Controller::InsertGrouped(JobRecord record) {
  PendingInsert me;
  me.record = std::move(record);
  std::unique_lock<std::mutex> queue_lock(insert_mu_);
  inserts_.push_back(&me);
  inserted_.wait(queue_lock, [&] { return me.done || inserts_.front() == &me; });
  if (me.done) return std::move(me.result);
  const std::vector<PendingInsert*> batch(inserts_.begin(), inserts_.end());
  queue_lock.unlock();
  std::vector<JobRecord> records;
  for (PendingInsert* p : batch) records.push_back(std::move(p->record));
  std::vector<absl::StatusOr<JobRecord>> results;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      results.assign(batch.size(), absl::UnavailableError("dlpd is shutting down"));
    } else {
      results = store_.InsertAll(std::move(records));
      for (absl::StatusOr<JobRecord>& r : results) {
        if (r.ok()) {
          active_[r->seq] = *r;
        } else {
          r = absl::UnavailableError(
              absl::StrCat("the job store refused the job: ", r.status().message()));
        }
      }
    }
    ++generation_;
    work_ = true;
    wake_.notify_all();
  }
  queue_lock.lock();
  for (size_t i = 0; i < batch.size(); ++i) {
    inserts_.pop_front();
    batch[i]->result = std::move(results[i]);
    batch[i]->done = true;
  }
  inserted_.notify_all();
  return std::move(me.result);
}

std::vector<QueueStatus> Controller::QueueStatuses() {
  std::lock_guard<std::mutex> lock(mu_);
  Snapshot snapshot = BuildSnapshot(active_, options_.capacity, absl::Now());
  snapshot.queues = ConfiguredQueues();
  history_.Fill(snapshot);  // as of the last round
  return server::QueueStatuses(snapshot);
}

int Controller::ActiveJobsIn(const std::string& queue) {
  std::lock_guard<std::mutex> lock(mu_);
  int count = 0;
  for (const auto& [seq, record] : active_) {
    if (record.job.queue == queue && !IsTerminal(record.job.state)) ++count;
  }
  return count;
}

void Controller::Reschedule() {
  std::lock_guard<std::mutex> lock(mu_);
  work_ = true;
  wake_.notify_all();
}

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

absl::StatusOr<std::function<absl::StatusOr<contract::TenantFolder>()>> Controller::LogFolder(
    const std::string& id, const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));
  const Executor* executor = &executor_;
  return [executor, job = record.job.id]() -> absl::StatusOr<contract::TenantFolder> {
    DLP_ASSIGN_OR_RETURN(contract::TenantFolder files, executor->JobFiles(job));
    return files.Sub(contract::kLogFolderName);
  };
}

std::vector<SampledJob> Controller::RunningJobs() {
  StoreFilter f;
  f.state = JobState::kRunning;
  std::vector<JobRecord> records;
  {
    JobStore* store = nullptr;
    std::unique_lock<std::mutex> lock = LockReader(store);
    absl::StatusOr<std::vector<JobRecord>> listed = store->List(f);
    if (!listed.ok()) return {};
    records = std::move(*listed);
  }
  std::vector<SampledJob> out;
  for (JobRecord& r : records) {
    std::vector<pid_t> pids = executor_.JobProcesses(r);
    out.push_back({std::move(r.job), std::set<int>(pids.begin(), pids.end())});
  }
  return out;
}

absl::StatusOr<contract::TenantFolder> Controller::JobFiles(const std::string& id,
                                                           const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));
  return executor_.JobFiles(record.job.id);
}

absl::StatusOr<std::optional<contract::TenantFolder>> Controller::OutputFolder(
    const std::string& id, const std::string& tenant) {
  DLP_ASSIGN_OR_RETURN(JobRecord record, Read(id, tenant));  // NotFound: no such job
  absl::StatusOr<contract::TenantFolder> output = executor_.JobFiles(record.job.id);
  if (output.ok()) output = output->Sub(contract::kOutputFolderName);
  if (absl::IsNotFound(output.status())) return std::nullopt;
  if (!output.ok()) return output.status();
  return std::optional<contract::TenantFolder>(std::move(*output));
}

absl::Status Controller::RecordUsage(
    const std::map<std::string, std::vector<ReplicaUsage>>& round, int keep_per_replica) {
  std::vector<UsageSample> samples;
  for (const auto& [id, usage] : round) {
    int64_t seq = 0;
    if (!absl::SimpleAtoi(id, &seq)) continue;
    for (const ReplicaUsage& u : usage) samples.push_back({seq, u});
  }
  std::lock_guard<std::mutex> lock(mu_);
  return store_.AddUsage(samples, keep_per_replica);
}

absl::StatusOr<std::vector<ReplicaUsage>> Controller::Usage(const std::string& id,
                                                            const std::string& tenant) {
  JobStore* store = nullptr;
  std::unique_lock<std::mutex> lock = LockReader(store);
  DLP_ASSIGN_OR_RETURN(JobRecord record, FindJob(*store, id, tenant));
  return store->LatestUsage(record.seq);
}

}  // namespace dlp::server
