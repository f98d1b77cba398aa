#include "base/process/cpu_set.h"

#include "absl/strings/str_cat.h"

namespace dlp::base {

absl::StatusOr<cpu_set_t> CpuSetOf(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
      return absl::InvalidArgumentError(absl::StrCat("CPU ", cpu, " is out of range"));
    }
    CPU_SET(cpu, &set);
  }
  return set;
}

}  // namespace dlp::base
