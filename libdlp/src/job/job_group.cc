#include "job/job_group.h"

#include <algorithm>

#include "contract/env_names.h"
#include "spec/rules.h"

namespace dlp::internal {

JobState JobStateOfRank(std::string_view state) {
  if (state == contract::kRunning) return JobState::kRunning;
  if (state == contract::kSucceeded) return JobState::kSucceeded;
  if (state == contract::kFailed) return JobState::kFailed;
  return JobState::kQueued;  // Starting, or unknown
}

std::vector<JobReplica> JobReplicas(const contract::GroupStatus& status) {
  std::vector<JobReplica> replicas;
  for (const contract::RankStatus& r : status.replicas) {
    JobReplica rep;
    rep.name = r.name;
    rep.role = r.role;
    rep.index = r.index;
    rep.state = JobStateOfRank(r.state);
    rep.exit_code = r.exit_code;
    rep.signal = r.signal;
    rep.host = r.host;
    rep.pid = r.pid;
    rep.reason = r.reason;
    replicas.push_back(std::move(rep));
  }
  return replicas;
}

namespace {

// spec.tracing as the ranks' environment (runtime/src/trace/tracer.h); a
// role's own DLP_TRACE or DLP_TRACE_MAX_BYTES wins.
std::map<std::string, std::string> TracingEnv(Tracing tracing,
                                              std::map<std::string, std::string> env) {
  if (tracing == Tracing::kOff) env.try_emplace(contract::env::kTrace, "0");
  if (tracing == Tracing::kFull) env.try_emplace(contract::env::kTraceMaxBytes, "0");
  return env;
}

}  // namespace

contract::Group JobGroup(const JobSpec& spec) {
  contract::Group group;
  group.framework = spec.framework;
  group.workdir = spec.workdir;
  for (const ReplicaSpec& r : spec.replicas) {
    // A fraction is a whole device to dlp-run without dlpd (dlpd's placement
    // shares devices through the group's `devices`).
    const int gpus = static_cast<int>((r.resources.gpu_millis + 999) / 1000);
    group.roles.push_back({r.role, r.count, r.command, TracingEnv(spec.tracing, r.env), gpus, {}});
  }
  group.restart_policy = spec.restart_policy.policy;
  group.max_restarts = spec.restart_policy.max_restarts;
  group.success_roles = spec.success_policy.roles;
  group.backoff = absl::Seconds(spec.restart_policy.backoff_seconds);
  group.log_max_bytes = spec.logs.max_bytes > 0 ? spec.logs.max_bytes : kDefaultLogMaxBytes;
  return group;
}

void ContinueRestarts(const Job& job, const JobSpec& spec, contract::Group& group) {
  group.restart_count = job.restart_count;
  const int failure_restarts = job.restart_count - job.preemptions;
  group.max_restarts = std::max(0, spec.restart_policy.max_restarts - failure_restarts);
  group.job_max_restarts =
      group.max_restarts != spec.restart_policy.max_restarts ? spec.restart_policy.max_restarts : 0;
}

contract::DlpRunCommand ExecutorDlpRunCommand(const std::string& dlp_run,
                                              const contract::JobFolder& folder,
                                              const std::string& id, const std::string& name,
                                              absl::Duration grace_period) {
  contract::DlpRunJob job;
  job.dlp_run = dlp_run;
  job.group_file = folder.GroupFile();
  job.log_dir = folder.LogDir();
  job.status_file = folder.StatusFile();
  // dlpd escalates to SIGKILL itself after its grace period: dlp-run at the same time.
  job.grace_period = grace_period;
  job.job_id = id;
  job.job_name = name;
  job.output_dir = folder.OutputDir();
  return contract::MakeDlpRunCommand(job);
}

}  // namespace dlp::internal
