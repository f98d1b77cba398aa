// Which CPUs a rank runs on under `dlp-run --bind-to core`, as mpirun's
// --bind-to core --map-by slot:PE=n does: the CPUs the launching process may
// use (its affinity, which a cgroup cpuset or taskset narrows) are split into
// one run of consecutive CPUs per local rank, the first runs one CPU longer
// when they do not divide evenly. A bound rank is never moved onto a peer's
// core, where a rank waiting for that peer would hold the core it needs.
#pragma once

#include <sched.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dlp::runtime {

// The CPUs `local_rank` of `local_size` gets out of `allowed`; empty (not
// bound) when there are more local ranks than CPUs: they share the CPUs, and
// the collectives yield to each other instead (shm_group.h).
std::vector<int> CpusForLocalRank(const std::vector<int>& allowed, int local_rank, int local_size);

// The CPUs this process may run on, in increasing order.
std::vector<int> AllowedCpus();

// Restricts the calling process (and the threads it starts later) to `cpus`.
absl::Status BindToCpus(const std::vector<int>& cpus);

}  // namespace dlp::runtime
