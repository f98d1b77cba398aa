// Kueue's baseline workload (kueue_workload.h) in virtual time: dlpd's
// scheduling policy on the same queues, with jobs that start and end the
// instant the policy says so. What the policy alone allows on this workload:
// the bound a real dlpd's figures are to be read against.
#pragma once

#include "absl/time/time.h"

namespace dlp::bench {

// Prints the same table as the run on a real dlpd; 0 on success, 1 when the
// policy broke an invariant or a job never started.
// `preempt_exempt_time`: as dlpd's --preempt-exempt-time.
int RunKueueBaselineInVirtualTime(double scale, absl::Duration preempt_exempt_time);

}  // namespace dlp::bench
