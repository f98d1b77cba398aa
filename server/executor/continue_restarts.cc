#include "server/executor/continue_restarts.h"

#include <algorithm>

namespace dlp::server {

void ContinueRestarts(const Job& job, const JobSpec& spec, contract::Group& group) {
  group.restart_count = job.restart_count;
  const int failure_restarts = job.restart_count - job.preemptions;
  group.max_restarts = std::max(0, spec.restart_policy.max_restarts - failure_restarts);
  group.job_max_restarts =
      group.max_restarts != spec.restart_policy.max_restarts ? spec.restart_policy.max_restarts : 0;
}

}  // namespace dlp::server
