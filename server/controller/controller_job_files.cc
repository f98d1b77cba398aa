// What a job wrote and used: its log and output folders as dlpd may open
// them, the running jobs the usage sampler watches, and what it samples.
#include "server/controller/controller.h"

#include <set>

#include "absl/strings/numbers.h"
#include "dlp/status.h"

namespace dlp::server {

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

}  // namespace dlp::server
