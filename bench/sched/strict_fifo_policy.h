// The baseline: one line for the whole machine in submission order, no
// priorities, no queues; the first job that does not fit blocks every job
// behind it. Gangs start whole (GPU placement as dlpd places them).
#pragma once

#include "server/scheduler/policy.h"

namespace dlp::bench {

class StrictFifoPolicy : public server::SchedulingPolicy {
 public:
  server::Decision Schedule(const server::Snapshot& snapshot) const override;
};

}  // namespace dlp::bench
