// A list of CPU numbers as the set sched_setaffinity takes.
#pragma once

#include <sched.h>

#include <vector>

#include "absl/status/statusor.h"

namespace dlp::base {

// `cpus` as a set; InvalidArgument for a CPU it cannot hold.
absl::StatusOr<cpu_set_t> CpuSetOf(const std::vector<int>& cpus);

}  // namespace dlp::base
