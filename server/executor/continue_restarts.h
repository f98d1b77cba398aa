// A job started again (after a preemption, or re-formed at another size):
// the group's first round counts on from the job's restarts (so that its
// ranks resume), only failures use up restartPolicy.maxRestarts, and
// TORCHELASTIC_MAX_RESTARTS stays the spec's (contract::TorchMaxRestarts).
#pragma once

#include "contract/group.h"
#include "dlp/job.h"

namespace dlp::server {

void ContinueRestarts(const Job& job, const JobSpec& spec, contract::Group& group);

}  // namespace dlp::server
