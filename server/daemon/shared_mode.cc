#include "server/daemon/shared_mode.h"

#include <sys/stat.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "server/executor/run_as.h"

namespace dlp::server {

absl::Status CheckSharedMode(const std::string& state_dir) {
  if (absl::Status privilege = CheckRunAsPrivilege(); !privilege.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tenant tokens need dlpd to run each tenant's jobs as the tenant's Unix account: ",
        privilege.message(), "; without tokens dlpd serves its owner only"));
  }
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(state_dir, ec);
  for (std::filesystem::path p = absolute.parent_path(); !ec; p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "tenants' jobs cannot reach their folders in ", state_dir, "/jobs: ", p.string(),
          " is not searchable by other users; choose a --state-dir such as /var/lib/dlp"));
    }
    if (p == p.parent_path()) break;
  }
  return absl::OkStatus();
}

}  // namespace dlp::server
