#include "job/job_group.h"

#include <algorithm>

#include "contract/env_names.h"
#include "dlp/job_group.h"
#include "dlp/status.h"
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

}  // namespace dlp::internal

namespace dlp {

std::string JobGroupJson(const JobSpec& spec) {
  return contract::GroupToJson(internal::JobGroup(spec));
}

absl::StatusOr<std::vector<JobReplica>> JobReplicasFromStatusJson(std::string_view status_json,
                                                                  const std::string& source) {
  DLP_ASSIGN_OR_RETURN(contract::GroupStatus status,
                       contract::ParseStatusJson(status_json, source));
  return internal::JobReplicas(status);
}

}  // namespace dlp
