// A JobSpec as the job contract's group (runtime/src/contract/group.h): the one
// translation used by dlpd's executor, `dlp render` and the Slurm backend.
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

// A job started again (after a preemption, or re-formed at another size):
// the group's first round counts on from the job's restarts (so that its
// ranks resume), only failures use up restartPolicy.maxRestarts, and
// TORCHELASTIC_MAX_RESTARTS stays the spec's (contract::TorchMaxRestarts).
void ContinueRestarts(const Job& job, const JobSpec& spec, contract::Group& group);

// How dlpd's executor starts dlp-run for job `id` in `folder` (each
// replica's GPUs are in the group file: contract::Role::devices).
contract::DlpRunCommand ExecutorDlpRunCommand(const std::string& dlp_run,
                                              const contract::JobFolder& folder,
                                              const std::string& id, const std::string& name,
                                              absl::Duration grace_period);

// The job's replicas as dlp-run's status file reports them; empty when it
// names none yet.
std::vector<JobReplica> JobReplicas(const contract::GroupStatus& status);
// A rank's state in the status file as a job state (Starting: Queued).
JobState JobStateOfRank(std::string_view state);

}  // namespace dlp::internal
