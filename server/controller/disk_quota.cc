#include "server/controller/disk_quota.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "contract/tenant_tree.h"
#include "contract/tenant_files.h"
#include "server/scheduler/resources.h"

namespace dlp::server {

DiskQuota::DiskQuota(int64_t quota_bytes, std::string jobs_dir)
    : quota_bytes_(quota_bytes), jobs_dir_(std::move(jobs_dir)) {}

void DiskQuota::SetSources(Sources sources) {
  std::lock_guard<std::mutex> lock(mu_);
  sources_ = std::move(sources);
}

DiskQuota::Limit DiskQuota::LimitOf(const std::string& tenant) {
  if (tenant.empty()) return {};
  std::function<std::optional<int64_t>(const std::string&)> own_quota;
  {
    std::lock_guard<std::mutex> lock(mu_);
    own_quota = sources_.own_quota;
  }
  const std::optional<int64_t> own = own_quota ? own_quota(tenant) : std::nullopt;
  return own ? Limit{*own, true} : Limit{quota_bytes_, false};
}

int64_t DiskQuota::QuotaOf(const std::string& tenant) { return LimitOf(tenant).bytes; }

int64_t DiskQuota::Measure(const std::string& tenant, int64_t quota) {
  Sources sources;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sources = sources_;
  }
  int64_t bytes = sources.other_bytes ? sources.other_bytes(tenant) : 0;
  if (!sources.job_ids) return bytes;
  for (const std::string& id : sources.job_ids(tenant)) {
    absl::StatusOr<contract::TenantFolder> folder = contract::TenantFolder::Open(jobs_dir_, id);
    if (!folder.ok()) continue;  // not started yet
    const contract::DiskUsage usage = contract::MeasureDiskUsage(*folder);
    // A tree too large to walk is as good as full.
    bytes += usage.complete ? usage.bytes : std::max(usage.bytes, quota);
  }
  return bytes;
}

std::string DiskQuota::Exceeded(const std::string& tenant, int64_t used,
                                const Limit& limit) const {
  return absl::StrCat(
      "DiskQuotaExceeded: tenant ", tenant, " holds ", DescribeMemory(used), " of its ",
      DescribeMemory(limit.bytes), " disk quota (its jobs' folders and models; ",
      limit.own ? "dlp admin tenant update --disk-quota" : "dlpd --tenant-disk-quota", ")");
}

absl::Status DiskQuota::Check(const std::string& tenant, int64_t more_bytes) {
  const Limit limit = LimitOf(tenant);
  if (limit.bytes <= 0) return absl::OkStatus();
  const int64_t used = Measure(tenant, limit.bytes);
  if (used + more_bytes < limit.bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      more_bytes > 0 ? absl::StrCat(Exceeded(tenant, used, limit), "; ",
                                    DescribeMemory(more_bytes), " more would exceed it")
                     : Exceeded(tenant, used, limit));
}

void DiskQuota::Enforce(
    const std::function<std::vector<std::string>()>& running_tenants,
    const std::function<void(const std::string& tenant, const std::string& reason)>& stop) {
  const std::vector<std::string> tenants = running_tenants();
  for (const std::string& tenant : std::set<std::string>(tenants.begin(), tenants.end())) {
    const Limit limit = LimitOf(tenant);
    if (limit.bytes <= 0) continue;
    const int64_t used = Measure(tenant, limit.bytes);
    if (used >= limit.bytes) stop(tenant, Exceeded(tenant, used, limit));
  }
}

}  // namespace dlp::server
