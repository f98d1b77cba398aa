#include "job/elastic_note.h"

#include "absl/strings/str_cat.h"

namespace dlp::internal {

std::string RunsAtCountNote(const JobSpec& spec, absl::string_view where) {
  for (const ReplicaSpec& r : spec.replicas) {
    if (!IsElastic(r)) continue;
    return absl::StrCat("# ", r.role, " is elastic (minCount ", MinCountOf(r), "): ", where,
                        ", it runs with all ", r.count,
                        " replicas and neither grows nor shrinks.\n");
  }
  return "";
}

}  // namespace dlp::internal
