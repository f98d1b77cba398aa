#include "server/controller/controller.h"

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "server/controller/snapshot_builder.h"
#include "server/scheduler/gpu_placement.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"
#include "server/support/thread_guard.h"

namespace dlp::server {

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

}  // namespace dlp::server
