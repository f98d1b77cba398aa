// The per-tenant disk quota (`dlpd --tenant-disk-quota`, or the tenant's own
// from `dlp admin tenant update --disk-quota`): what a tenant's jobs
// keep under STATE/jobs/ID (logs, traces, status, outputs: everything dlp-run
// and the job write there) plus the models it registered. A tenant at or over
// its quota cannot submit nor register a model (checked before anything is
// written), and its running jobs are stopped (Failed, DiskQuotaExceeded), as
// the OOM killer stops a job over its memory. The owner has no quota.
//
// Usage is measured through the trust boundary (contract/tenant_tree.h)
// afresh for every check (a walk of at most a million entries a job folder),
// so a tenant that just freed space or just filled it is judged by what is on
// disk now. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace dlp::server {

// What dlpd does when a tenant's usage is not bounded otherwise.
inline constexpr int64_t kDefaultTenantDiskQuota = int64_t{100} << 30;  // 100 GiB

class DiskQuota {
 public:
  struct Sources {
    // The ids of every job of the tenant (any state).
    std::function<std::vector<std::string>(const std::string& tenant)> job_ids;
    // Bytes the tenant holds elsewhere (its registered models).
    std::function<int64_t(const std::string& tenant)> other_bytes;
    // The tenant's own quota (0: none); nullopt: the default applies.
    std::function<std::optional<int64_t>(const std::string& tenant)> own_quota;
  };

  // `quota_bytes`: the default, 0 for none. `jobs_dir`: STATE/jobs.
  DiskQuota(int64_t quota_bytes, std::string jobs_dir);

  // Call before any Check; `sources` may use objects made after this one.
  void SetSources(Sources sources);

  // OK when the tenant ("" the owner) may write `more_bytes` more;
  // ResourceExhausted saying how much it uses of what otherwise.
  absl::Status Check(const std::string& tenant, int64_t more_bytes = 0);

  // Measures the tenants `running_tenants` returns and calls `stop(tenant,
  // reason)` for each at or over its quota (a round of dlpd's disk checks).
  void Enforce(const std::function<std::vector<std::string>()>& running_tenants,
               const std::function<void(const std::string& tenant, const std::string& reason)>&
                   stop);

  int64_t quota_bytes() const { return quota_bytes_; }
  // The quota the tenant is held to: its own, else the default (0: none;
  // always 0 for the owner, "").
  int64_t QuotaOf(const std::string& tenant);

 private:
  // A tenant's quota, and whether it is the tenant's own.
  struct Limit {
    int64_t bytes = 0;
    bool own = false;
  };
  Limit LimitOf(const std::string& tenant);
  int64_t Measure(const std::string& tenant, int64_t quota);
  std::string Exceeded(const std::string& tenant, int64_t used, const Limit& limit) const;

  const int64_t quota_bytes_;
  const std::string jobs_dir_;
  Sources sources_;
  std::mutex mu_;
};

}  // namespace dlp::server
