// A bench rank forked here binds itself to its share of the CPUs, as
// `dlp-run --bind-to core` binds a rank and as mpirun binds by default, so that
// every library in the comparison runs bound alike; DLP_BENCH_BIND=none
// leaves the ranks where the scheduler puts them.
#pragma once

#include <cstdlib>
#include <string>

#include "common/cpu_binding.h"

namespace bench {

// False when the binding was asked for and failed.
inline bool BindRank(int rank, int ranks) {
  const char* bind = std::getenv("DLP_BENCH_BIND");
  if (bind != nullptr && std::string(bind) == "none") return true;
  const std::vector<int> cpus =
      dlp::runtime::CpusForLocalRank(dlp::runtime::AllowedCpus(), rank, ranks);
  return cpus.empty() || dlp::runtime::BindToCpus(cpus).ok();
}

}  // namespace bench
