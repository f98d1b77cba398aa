// Rides out a moment when Slurm cannot be reached: slurmrestd drops a
// connection now and then, and squeue times out while slurmctld is busy or
// restarting. A `dlp submit --wait` that polls for an hour should not fail on
// one such moment, so reads and cancels (which Slurm may see twice without
// harm) are retried with backoff for a few seconds. Submit is not: a submission
// whose answer was lost may still have created the job.
#pragma once

#include <memory>

#include "absl/time/time.h"
#include "backends/slurm/transport.h"

namespace dlp::internal {

struct SlurmRetryPolicy {
  absl::Duration first_pause = absl::Milliseconds(100);
  absl::Duration max_pause = absl::Seconds(1);
  absl::Duration give_up_after = absl::Seconds(5);  // then the last error is returned
};

std::unique_ptr<SlurmTransport> WithRetries(std::unique_ptr<SlurmTransport> transport,
                                            SlurmRetryPolicy policy = {});

}  // namespace dlp::internal
