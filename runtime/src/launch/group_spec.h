// What dlp-run launches: a group of heterogeneous roles (the --group file of
// docs/runtime-contract.md, or the roles implied by -np N) and how it restarts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::launch {

enum class RestartPolicy { kNever, kOnFailure, kExitCode };

struct RoleSpec {
  std::string role = "worker";  // chief, ps, worker, evaluator, or "rank" for -np
  int count = 1;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  int gpus = 0;  // GPUs per replica
};

struct GroupSpec {
  std::string framework = "none";  // pytorch, tensorflow, horovod, jax, none
  std::string workdir;             // empty: dlp-run's working directory
  std::vector<RoleSpec> roles;
  RestartPolicy restart_policy = RestartPolicy::kNever;
  int max_restarts = 0;
  absl::Duration backoff = absl::ZeroDuration();
};

// Parses the JSON text of a group file; errors name `source` and the field.
absl::StatusOr<GroupSpec> ParseGroupJson(const std::string& text, const std::string& source);
absl::StatusOr<GroupSpec> ReadGroupFile(const std::string& path);

absl::StatusOr<RestartPolicy> ParseRestartPolicy(const std::string& name);

// Whether a rank that ended this way may be restarted under `policy`
// (ExitCode: exit codes 128-255 or death by signal).
bool ShouldRestart(RestartPolicy policy, int exit_code, int signal);

bool IsKnownFramework(const std::string& name);

}  // namespace dlp::launch
