#include "server/controller/retention.h"

#include "absl/strings/str_cat.h"
#include "contract/tenant_tree.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

std::vector<std::pair<std::string, std::string>> Retention::Prune(
    const std::vector<EndedJob>& ended, absl::Time now) const {
  std::vector<std::pair<std::string, std::string>> pruned;
  if (!options_.enabled()) return pruned;
  // What each folder still on disk holds, oldest job first.
  std::vector<std::pair<EndedJob, int64_t>> kept;
  int64_t total = 0;
  for (const EndedJob& job : ended) {
    absl::StatusOr<contract::TenantFolder> folder = contract::TenantFolder::Open(jobs_dir_, job.id);
    if (!folder.ok()) continue;  // none, or pruned already
    // Walked only when there is a budget to hold them to.
    const int64_t bytes = options_.max_bytes > 0 ? contract::MeasureDiskUsage(*folder).bytes : 0;
    kept.push_back({job, bytes});
    total += bytes;
  }
  for (const auto& [job, bytes] : kept) {
    std::string why;
    if (options_.max_age > absl::ZeroDuration() && now - job.finished > options_.max_age) {
      why = absl::StrCat("ended more than ", absl::FormatDuration(options_.max_age), " ago");
    } else if (options_.max_bytes > 0 && total > options_.max_bytes) {
      why = absl::StrCat("ended jobs' files over the ", DescribeMemory(options_.max_bytes),
                         " budget");
    } else {
      continue;
    }
    if (!contract::RemoveTenantFolder(jobs_dir_, job.id).ok()) continue;
    total -= bytes;
    pruned.push_back({job.id, why});
  }
  return pruned;
}

}  // namespace dlp::server
