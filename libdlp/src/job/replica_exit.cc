#include "job/replica_exit.h"

#include <string.h>

#include "absl/strings/str_cat.h"

namespace dlp::internal {

std::string SignalName(int signo) {
  const char* abbrev = sigabbrev_np(signo);
  if (abbrev == nullptr) return absl::StrCat("signal ", signo);
  return absl::StrCat("SIG", abbrev);
}

std::string DescribeReplicaExit(const JobReplica& r) {
  if (r.signal) {
    return absl::StrCat(r.name, " killed by signal ", *r.signal, " (", SignalName(*r.signal), ")");
  }
  // A replica that never started says why (dlp-run's "could not start: ...").
  if (r.pid == 0 && !r.reason.empty()) return absl::StrCat(r.name, " ", r.reason);
  if (r.exit_code) return absl::StrCat(r.name, " exited with code ", *r.exit_code);
  return absl::StrCat(r.name, " failed");
}

}  // namespace dlp::internal
