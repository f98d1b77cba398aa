// spec.dependsOn in dlpd: names and ids resolved at submit, and each round
// the Queued jobs whose dependencies are not met held out of the policy's
// snapshot (waiting) or cancelled (never to be met).
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dlp/job_dependencies.h"
#include "dlp/status.h"
#include "server/controller/controller.h"
#include "server/store/tenant_store.h"
#include "server/support/log.h"

namespace dlp::server {

absl::Status Controller::ResolveDependsOn(JobSpec& spec, const std::string& tenant) {
  for (size_t i = 0; i < spec.depends_on.size(); ++i) {
    JobDependency& d = spec.depends_on[i];
    const std::string path = absl::StrCat("spec.dependsOn[", i, "].job");
    int64_t seq = 0;
    if (absl::SimpleAtoi(d.job, &seq)) {
      // Another tenant's job reads as unknown, as everywhere else.
      absl::StatusOr<JobRecord> record = Read(d.job, tenant);
      if (absl::IsNotFound(record.status())) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": job ", d.job, " not found"));
      }
      DLP_RETURN_IF_ERROR(record.status());
      continue;
    }
    absl::StatusOr<int64_t> named = [&] {
      JobStore* store = nullptr;
      std::unique_lock<std::mutex> lock = LockReader(store);
      return store->NewestJobNamed(tenant.empty() ? kOwnerTenant : tenant, d.job);
    }();
    if (absl::IsNotFound(named.status())) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": no job named ", d.job));
    }
    DLP_RETURN_IF_ERROR(named.status());
    d.job = absl::StrCat(*named);
  }
  return absl::OkStatus();
}

std::optional<JobState> Controller::DependencyState(const std::string& id) {
  int64_t seq = 0;
  if (!absl::SimpleAtoi(id, &seq)) return std::nullopt;
  if (auto active = active_.find(seq); active != active_.end()) return active->second.job.state;
  if (auto ended = ended_.find(seq); ended != ended_.end()) return ended->second;
  absl::StatusOr<JobRecord> record = store_.Get(seq);
  if (absl::IsNotFound(record.status())) return std::nullopt;
  if (!record.ok()) return JobState::kQueued;  // unreadable now: wait, and ask again next round
  if (IsTerminal(record->job.state)) ended_[seq] = record->job.state;
  return record->job.state;
}

std::map<int64_t, PendingExplanation> Controller::HoldDependents() {
  std::map<int64_t, PendingExplanation> held;
  std::vector<JobChange> cancelled;
  std::set<int64_t> referenced;
  // In id order, a job comes after its dependencies (they existed when it was
  // submitted), so one pass cancels a whole chain.
  std::map<int64_t, JobState> decided;
  const JobStateOf state_of = [&](const std::string& id) -> std::optional<JobState> {
    int64_t seq = 0;
    if (absl::SimpleAtoi(id, &seq)) {
      referenced.insert(seq);
      if (auto d = decided.find(seq); d != decided.end()) return d->second;
    }
    return DependencyState(id);
  };
  const absl::Time now = absl::Now();
  for (const auto& [seq, record] : active_) {
    // A job that started once (then was preempted) had its dependencies met.
    if (record.job.state != JobState::kQueued || record.job.spec.depends_on.empty() ||
        record.start_attempt > 0) {
      continue;
    }
    const DependencyCheck check = CheckDependencies(record.job.spec, state_of);
    if (check.verdict == DependencyVerdict::kWaiting) {
      held[seq].reason = check.reason;
    } else if (check.verdict == DependencyVerdict::kNever) {
      JobRecord r = record;
      r.job.state = JobState::kCancelled;
      r.job.reason = check.reason;
      r.job.finished = now;
      r.job.position.reset();
      r.job.estimated_start.reset();
      for (JobReplica& replica : r.job.replicas) replica.state = JobState::kCancelled;
      Log(absl::StrCat("job ", r.job.id, ": Cancelled: ", check.reason));
      decided[seq] = JobState::kCancelled;
      cancelled.push_back({std::move(r), {{now, "Cancelled", check.reason}}});
    }
  }
  Record(std::move(cancelled));
  std::erase_if(ended_, [&](const auto& entry) { return !referenced.contains(entry.first); });
  return held;
}

}  // namespace dlp::server
