// Waiting for jobs from the CLI: a progress line on a terminal, Ctrl-C returns.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/client.h"

namespace dlp::cli {

struct WaitFlags {
  absl::Time deadline = absl::InfiniteFuture();
  bool progress = true;  // show "job 7 Running 12s" on stderr (terminal only)
};

// Waits until the job is terminal. Cancelled (exit 130) when Ctrl-C was pressed,
// DeadlineExceeded naming the job and its state when the deadline passes.
absl::StatusOr<Job> WaitForJob(Client& client, const std::string& id, const WaitFlags& flags);

// Waits while the job is Queued, saying why on stderr (the scheduler's
// "waiting for job 5 (est. start in 3m)"): the live line of WaitForJob on a
// terminal, elsewhere each new reason once. Returns the job as read last
// (not Queued); Cancelled (exit 130) on Ctrl-C. For --follow, before the logs.
absl::StatusOr<Job> WaitWhileQueued(Client& client, const std::string& id, const WaitFlags& flags);

}  // namespace dlp::cli
