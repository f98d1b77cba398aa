// What `dlp render` and a backend's script say of an elastic role (a worker
// with minCount below count) where the backend runs it at its count.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "dlp/job.h"

namespace dlp::internal {

// "# worker is elastic (minCount 2): WHERE, it runs with all 4 replicas and
// neither grows nor shrinks.\n"; "" for a rigid job. `where` explains why,
// e.g. "on Slurm, whose allocation is fixed once the job starts".
std::string RunsAtCountNote(const JobSpec& spec, absl::string_view where);

}  // namespace dlp::internal
