// How the Slurm backend talks to Slurm: the command-line tools (sbatch, squeue,
// scancel) or slurmrestd's REST API (v0.0.38). Both speak the same job
// description and return the same job records, so the backend above them
// does not know which one it uses.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::internal {

// One batch job as sbatch options / a REST job description. Values are given
// as they are; each transport does its own quoting (argv, JSON).
struct SlurmSubmission {
  std::string script;  // the batch script (its #SBATCH lines repeat the fields below)
  std::string name;
  std::string comment;
  std::string partition, account, qos;  // empty: Slurm's default
  std::string output;                   // batch script's stdout and stderr
  std::string chdir;
  int min_nodes = 1, max_nodes = 1;
  int tasks = 1;
  int cpus_per_task = 1;
  int64_t mem_per_cpu_mb = 0;  // 0: not requested
  int gpus_per_task = 0;
  int64_t time_limit_minutes = 0;  // 0: the partition's limit
  int nice = 0;
  // Whether Slurm may requeue the job (node failure, preemption): --requeue or
  // --no-requeue, never the cluster's default.
  bool requeue = false;
  // spec.dependsOn as --dependency ("afterok:12,afterany:13": all of them);
  // empty: none. With one, --kill-on-invalid-dep=yes: a dependency that can
  // never be met cancels the job instead of leaving it pending.
  std::string dependency;
  // The job's environment. sbatch exports the submitter's own (like
  // --export=ALL); the REST API needs it spelled out.
  std::map<std::string, std::string> environment;
};

// One job as squeue --json and slurmrestd report it.
struct SlurmJobRecord {
  std::string id;
  std::string name;
  std::string comment;
  std::string user;
  std::string partition;
  std::string state;   // "PENDING", "RUNNING", "COMPLETED", "TIMEOUT", ...
  std::string reason;  // "Resources", "Priority", "NonZeroExitCode", "None", ...
  int exit_status = 0;  // a wait(2) status: code << 8, or the signal number
  std::string nodes;
  std::optional<absl::Time> submitted, started, ended;
};

class SlurmTransport {
 public:
  virtual ~SlurmTransport() = default;
  virtual std::string Name() const = 0;  // "cli" or "rest"
  // Returns Slurm's job id. InvalidArgument quoting Slurm when it rejects the
  // job (bad partition, impossible request); Unavailable when Slurm cannot be
  // reached.
  virtual absl::StatusOr<std::string> Submit(const SlurmSubmission& job) = 0;
  // NotFound when Slurm no longer (or never) knew the job.
  virtual absl::StatusOr<SlurmJobRecord> Job(const std::string& id) = 0;
  virtual absl::StatusOr<std::vector<SlurmJobRecord>> Jobs() = 0;
  virtual absl::Status Cancel(const std::string& id) = 0;
};

std::unique_ptr<SlurmTransport> NewCliTransport();
// `token_file` holds a JWT from `scontrol token` (raw, or SLURM_JWT=...).
std::unique_ptr<SlurmTransport> NewRestTransport(const std::string& url, const std::string& user,
                                                 const std::string& token_file);

// Parses the {"jobs": [...]} document of squeue --json and slurmrestd.
// InvalidArgument naming what was wrong with it.
absl::StatusOr<std::vector<SlurmJobRecord>> ParseSlurmJobs(const std::string& json);
// Slurm's own error messages in a REST reply ("errors": [{"error": ...}]), joined.
std::string SlurmErrors(const std::string& json);

}  // namespace dlp::internal
