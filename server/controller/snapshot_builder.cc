#include "server/controller/snapshot_builder.h"

#include "absl/strings/str_cat.h"
#include "server/scheduler/elastic.h"

namespace dlp::server {

namespace {

// What the policy knows of any job, waiting or running.
template <typename Job>
Job CommonOf(const JobRecord& record) {
  const JobSpec& spec = record.job.spec;
  Job job;
  job.seq = record.seq;
  job.tenant = record.job.tenant;
  job.queue = record.job.queue;
  job.priority = spec.priority;
  job.demand = DemandOf(spec);
  if (record.job.created) job.submitted = *record.job.created;
  job.time_limit = absl::Seconds(spec.active_deadline_seconds);
  job.preemptible = spec.preemptible;
  job.preemptions = record.job.preemptions;
  return job;
}

}  // namespace

PendingJob PendingOf(const JobRecord& record) {
  PendingJob job = CommonOf<PendingJob>(record);
  job.elastic = ElasticRoleOf(record.job.spec);
  for (const ReplicaSpec& r : record.job.spec.replicas) {
    if (r.resources.gpu_millis <= 0) continue;
    for (int i = 0; i < r.count; ++i) {
      job.replicas.push_back(
          {absl::StrCat(r.role, "-", i), r.resources.gpu_millis, r.resources.gpu_type});
    }
  }
  return job;
}

RunningJob RunningOf(const JobRecord& record) {
  RunningJob job = CommonOf<RunningJob>(record);
  job.placement = record.placement;
  if (record.job.started) job.started = *record.job.started;
  // Preempted or cancelled: its resources are about to be free.
  job.stopping = record.stop_requested_us.has_value() &&
                 record.stop_state != JobRecord::kResizingStopState;
  job.elastic = ElasticRoleOf(record.job.spec);
  if (!job.elastic.elastic()) return job;
  // An elastic job holds its size; a grow under way its new size already, a
  // shrink its old one until the group has re-formed (snapshot.h).
  job.size = record.job.size > 0 ? record.job.size : job.elastic.max;
  job.resized = record.resized;
  if (record.reforming) job.resizing_to = job.size;
  if (record.resize_to > job.size) {
    job.size = record.resize_to;
    job.placement = record.resize_placement;
  }
  if (record.resize_to > 0) job.resizing_to = record.resize_to;
  job.demand = DemandAtSize(job.elastic, job.demand, job.elastic.max, job.size);
  return job;
}

Snapshot BuildSnapshot(const std::map<int64_t, JobRecord>& active,
                       const ResourceVector& capacity, absl::Time now) {
  Snapshot snapshot;
  snapshot.now = now;
  snapshot.capacity = capacity;
  for (const auto& [seq, record] : active) {
    // A job re-forming at a new size holds its resources meanwhile.
    if (record.job.state == JobState::kRunning || record.reforming) {
      snapshot.running.push_back(RunningOf(record));
    } else if (record.job.state == JobState::kQueued) {
      snapshot.pending.push_back(PendingOf(record));
    }
  }
  return snapshot;
}

}  // namespace dlp::server
