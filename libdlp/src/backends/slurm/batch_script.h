// Turns a validated JobSpec into a Slurm batch job: the sbatch options and the
// batch script, whose one command `srun`s dlp-run on the job's group file
// (JOB_DIR/group.json, written at submission): one task per replica, each
// running its replica as dlp-run does under dlpd (docs/runtime-contract.md,
// "Under Slurm"). Pure functions: rendering needs no running Slurm.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/slurm/transport.h"
#include "dlp/job.h"

namespace dlp::internal {

struct SlurmJobLayout {
  std::string job_dir;  // the job's folder on the shared filesystem
  std::string dlp_run;  // absolute path; empty: "dlp-run" (found in the tasks' PATH)
  std::string partition, account, qos;  // from the context; a spec's queue wins over partition
};

// The submission for `spec` (script included). InvalidArgument for a spec
// without replicas or commands.
absl::StatusOr<SlurmSubmission> BuildSubmission(const JobSpec& spec, const SlurmJobLayout& layout);

// --dependency for spec.dependsOn, whose jobs are Slurm job ids:
// succeeded -> afterok, failed -> afternotok, finished -> afterany.
std::string SlurmDependency(const std::vector<JobDependency>& depends_on);

// Slurm's job name for a dlp name: [A-Za-z0-9._-] kept, anything else '_'.
std::string SlurmJobName(const std::string& name);

// The comment carries the job folder's name, so that a job found in squeue
// leads back to its spec and logs: "dlp:KEY" then the labels (",k=v,k2=v2").
std::string SlurmComment(const std::string& key, const JobSpec& spec);
// KEY from such a comment; empty when it is not a dlp job.
std::string KeyFromComment(const std::string& comment);

}  // namespace dlp::internal
