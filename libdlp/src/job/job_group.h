// A JobSpec as the job contract's group (runtime/src/contract/group.h): the one
// translation used by `dlp render`, the Slurm and Kubernetes backends, and
// through dlp/job_group.h by dlpd's executor.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "contract/dlp_run.h"
#include "contract/group.h"
#include "contract/status.h"
#include "dlp/job.h"

namespace dlp::internal {

contract::Group JobGroup(const JobSpec& spec);

// The job's replicas as dlp-run's status file reports them; empty when it
// names none yet.
std::vector<JobReplica> JobReplicas(const contract::GroupStatus& status);
// A rank's state in the status file as a job state (Starting: Queued).
JobState JobStateOfRank(std::string_view state);

}  // namespace dlp::internal
