// Taking a job in: admission (quotas, queue access, what can ever fit), its
// first record, and the group commit that inserts submissions together.
#include "server/controller/controller.h"

#include "absl/strings/str_cat.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "server/controller/queue_access.h"
#include "server/controller/snapshot_builder.h"
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

}  // namespace dlp::server
