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

}  // namespace dlp::cli
