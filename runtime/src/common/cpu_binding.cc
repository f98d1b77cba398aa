#include "common/cpu_binding.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/process/cpu_set.h"

namespace dlp::runtime {

std::vector<int> CpusForLocalRank(const std::vector<int>& allowed, int local_rank, int local_size) {
  const int cpus = static_cast<int>(allowed.size());
  if (local_size < 1 || local_rank < 0 || local_rank >= local_size || local_size > cpus) return {};
  const int base = cpus / local_size, extra = cpus % local_size;
  const int first = local_rank * base + std::min(local_rank, extra);
  const int count = base + (local_rank < extra ? 1 : 0);
  return std::vector<int>(allowed.begin() + first, allowed.begin() + first + count);
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  return out;
}

absl::Status BindToCpus(const std::vector<int>& cpus) {
  absl::StatusOr<cpu_set_t> set = base::CpuSetOf(cpus);
  if (!set.ok()) return set.status();
  if (sched_setaffinity(0, sizeof(*set), &*set) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("binding to CPUs ", absl::StrJoin(cpus, ","), ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::runtime
