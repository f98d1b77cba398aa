#include "server/controller/controller.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "server/log.h"
#include "server/store/tenant_store.h"

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
      options_(options) {}

Controller::~Controller() { Shutdown(); }

absl::Status Controller::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    StoreFilter filter;
    filter.active_only = true;
    DLP_ASSIGN_OR_RETURN(std::vector<JobRecord> active, store_.List(filter));
    for (JobRecord& record : active) {
      std::vector<Event> events;
      executor_.Reconcile(record, events);
      if (!record.quarantine.empty()) Quarantine(record, events);
      Log(absl::StrCat("job ", record.job.id, ": ", std::string(JobStateName(record.job.state)),
                       record.job.reason.empty() ? "" : ": ", record.job.reason));
      if (!events.empty()) {
        Save(record, events);
      } else {
        active_[record.seq] = std::move(record);
      }
    }
    work_ = true;
  }
  loop_ = std::thread([this] { Loop(); });
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

void Controller::Save(JobRecord& record, const std::vector<Event>& events) {
  absl::Status status = store_.Update(record, events);
  if (!status.ok()) Log(absl::StrCat("job ", record.job.id, ": cannot save: ", status.message()));
  if (IsTerminal(record.job.state)) {
    active_.erase(record.seq);
  } else {
    active_[record.seq] = record;
  }
  changed_.notify_all();
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

absl::StatusOr<Job> Controller::Submit(JobSpec spec, const std::string& tenant) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  DLP_RETURN_IF_ERROR(policy_->Admit(DemandOf(spec), options_.capacity));
  DLP_RETURN_IF_ERROR(RunAs(tenant).status());
  JobRecord record;
  record.job.name = spec.name;
  record.job.tenant = tenant.empty() ? kOwnerTenant : tenant;
  record.job.queue = spec.queue.empty() ? "default" : spec.queue;
  spec.queue = record.job.queue;
  record.job.replicas = InitialReplicas(spec);
  record.job.reason = "waiting to be scheduled";
  record.job.spec = std::move(spec);
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return absl::UnavailableError("dlpd is shutting down");
  DLP_ASSIGN_OR_RETURN(record, store_.Insert(std::move(record)));
  active_[record.seq] = record;
  work_ = true;
  wake_.notify_all();
  return record.job;
}

absl::StatusOr<JobRecord> Controller::GetLocked(const std::string& id,
                                                const std::string& tenant) {
  int64_t seq = 0;
  if (!absl::SimpleAtoi(id, &seq) || seq <= 0) {
    return absl::NotFoundError(absl::StrCat("job ", id, " not found"));
  }
  absl::StatusOr<JobRecord> record = store_.Get(seq);
  if (!record.ok() || (!tenant.empty() && record->job.tenant != tenant)) {
    if (!record.ok() && !absl::IsNotFound(record.status())) return record.status();
    return absl::NotFoundError(absl::StrCat("job ", id, " not found"));
  }
  return record;
}

absl::StatusOr<Job> Controller::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  return record.job;
}

absl::StatusOr<std::vector<Job>> Controller::List(const ListFilter& filter,
                                                  const std::string& tenant) {
  StoreFilter f;
  f.state = filter.state;
  f.queue = filter.queue;
  f.tenant = tenant;
  if (filter.labels.empty()) f.limit = filter.limit;
  std::vector<JobRecord> records;
  {
    std::lock_guard<std::mutex> lock(mu_);
    DLP_ASSIGN_OR_RETURN(records, store_.List(f));
  }
  std::vector<Job> jobs;
  for (JobRecord& r : records) {
    bool match = true;
    for (const auto& [k, v] : filter.labels) {
      auto it = r.job.spec.labels.find(k);
      if (it == r.job.spec.labels.end() || it->second != v) match = false;
    }
    if (match) jobs.push_back(std::move(r.job));
  }
  if (filter.limit > 0 && jobs.size() > static_cast<size_t>(filter.limit)) {
    jobs.erase(jobs.begin(), jobs.end() - filter.limit);
  }
  return jobs;
}

absl::StatusOr<Job> Controller::Cancel(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  auto active = active_.find(record.seq);
  if (active == active_.end()) return record.job;  // terminal: unchanged
  record = active->second;
  std::vector<Event> events;
  if (record.job.state == JobState::kQueued) {
    record.job.state = JobState::kCancelled;
    record.job.reason = "cancelled before it started";
    record.job.finished = absl::Now();
    for (JobReplica& r : record.job.replicas) r.state = JobState::kCancelled;
    events.push_back({*record.job.finished, "Cancelled", record.job.reason});
  } else {
    executor_.RequestStop(record, JobState::kCancelled, "cancelled by user", events);
    work_ = true;
    wake_.notify_all();
  }
  if (!events.empty()) Save(record, events);
  return record.job;
}

absl::StatusOr<Job> Controller::Wait(const std::string& id, const std::string& tenant,
                                     absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
    if (IsTerminal(record.job.state) || stopping_ || absl::Now() >= deadline) return record.job;
    changed_.wait_until(lock, absl::ToChronoTime(deadline));
  }
}

absl::StatusOr<std::vector<Event>> Controller::Events(const std::string& id,
                                                      const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  return store_.Events(record.seq);
}

absl::StatusOr<std::string> Controller::LogDir(const std::string& id,
                                               const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  return executor_.LogDir(record.job.id);
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
  std::lock_guard<std::mutex> lock(mu_);
  DLP_ASSIGN_OR_RETURN(JobRecord record, GetLocked(id, tenant));
  return store_.LatestUsage(record.seq);
}

void Controller::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    work_ = false;
    Tick();
    wake_.wait_for(lock, absl::ToChronoMilliseconds(options_.poll_interval),
                   [this] { return stopping_ || work_; });
  }
}

void Controller::Tick() {
  std::vector<int64_t> running;
  for (const auto& [seq, record] : active_) {
    if (record.job.state == JobState::kRunning) running.push_back(seq);
  }
  for (int64_t seq : running) {
    JobRecord record = active_[seq];
    std::vector<Event> events;
    if (executor_.Poll(record, events)) {
      Save(record, events);
      if (IsTerminal(record.job.state)) {
        Log(absl::StrCat("job ", record.job.id, ": ", std::string(JobStateName(record.job.state)),
                         record.job.reason.empty() ? "" : ": ", record.job.reason));
      }
    }
  }
  executor_.Tidy();
  Schedule();
}

void Controller::Schedule() {
  ClusterState cluster;
  cluster.capacity = options_.capacity;
  std::set<int> held;
  std::vector<PendingJob> pending;
  for (const auto& [seq, record] : active_) {
    if (record.job.state == JobState::kRunning) {
      cluster.used += DemandOf(record.job.spec);
      held.insert(record.gpus.begin(), record.gpus.end());
    } else if (record.job.state == JobState::kQueued) {
      pending.push_back({seq, record.job.tenant, record.job.queue, record.job.spec.priority,
                         DemandOf(record.job.spec)});
    }
  }
  if (pending.empty()) return;
  for (int g = 0; g < cluster.capacity.gpus; ++g) {
    if (!held.contains(g)) cluster.free_gpus.push_back(g);
  }
  ScheduleDecision decision = policy_->Schedule(pending, cluster);
  for (const GpuAssignment& assignment : decision.start) {
    JobRecord record = active_[assignment.seq];
    record.gpus = assignment.gpus;
    std::vector<Event> events;
    absl::StatusOr<std::optional<UnixAccount>> run_as =
        RunAs(record.job.tenant == kOwnerTenant ? "" : record.job.tenant);
    absl::Status started = run_as.ok() ? executor_.Start(record, *run_as, events) : run_as.status();
    if (!started.ok()) {
      record.job.state = JobState::kFailed;
      record.job.reason = absl::StrCat("cannot start: ", started.message());
      record.job.finished = absl::Now();
      for (JobReplica& r : record.job.replicas) r.state = JobState::kFailed;
      events.push_back({*record.job.finished, "Failed", record.job.reason});
    }
    Log(absl::StrCat("job ", record.job.id, ": ", started.ok() ? "started" : record.job.reason));
    Save(record, events);
  }
  std::vector<std::pair<int64_t, std::string>> changed;
  for (const auto& [seq, reason] : decision.waiting) {
    JobRecord& record = active_[seq];
    if (record.job.reason == reason) continue;
    record.job.reason = reason;
    changed.emplace_back(seq, reason);
  }
  if (changed.empty()) return;
  absl::Status status = store_.UpdateReasons(changed);
  if (!status.ok()) Log(absl::StrCat("cannot save queue reasons: ", status.message()));
  changed_.notify_all();
}

}  // namespace dlp::server
