#include "dlp/replica_exit.h"

#include "absl/strings/str_cat.h"
#include "base/process/signal_name.h"

namespace dlp {

std::string DescribeReplicaExit(const JobReplica& r) {
  if (r.signal) {
    return absl::StrCat(r.name, " killed by signal ", *r.signal, " (", base::SignalName(*r.signal), ")");
  }
  // A replica that never started says why (dlp-run's "could not start: ...").
  if (r.pid == 0 && !r.reason.empty()) return absl::StrCat(r.name, " ", r.reason);
  if (r.exit_code) return absl::StrCat(r.name, " exited with code ", *r.exit_code);
  return absl::StrCat(r.name, " failed");
}

}  // namespace dlp
