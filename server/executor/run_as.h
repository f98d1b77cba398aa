// Running a tenant's jobs as the tenant's own Unix account (the model Slurm
// uses): who that account is, whether dlpd may switch to it, and the fresh
// environment such a job starts with. The owner's jobs run as dlpd's own user
// and never come through here.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dlp::server {

struct UnixAccount {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups, the primary one included
  std::string home, shell;
};

// Names the Unix account a tenant's jobs run as. dlpd's default is the
// tenant's own name; a tenant store that records `--user UNIXUSER` injects its
// own (ControllerOptions::unix_user_for_tenant).
using UnixUserForTenant = std::function<std::string(const std::string& tenant)>;

// The account `name` from the passwd and group databases (NSS), with its
// supplementary groups. InvalidArgument when there is no such account, and
// when it is root: a tenant's job never runs as uid 0. Thread-safe.
absl::StatusOr<UnixAccount> LookupUnixAccount(const std::string& name);

// OK when this process may run jobs as other accounts: CAP_SETUID, CAP_SETGID
// (switch), CAP_CHOWN (give the job its folder), CAP_KILL (stop it) and
// CAP_DAC_READ_SEARCH (read its status) in its effective set, which root has.
// FailedPrecondition naming the missing capabilities otherwise.
absl::Status CheckRunAsPrivilege();

// The environment a tenant's job starts from: HOME, USER, LOGNAME and SHELL of
// the account, a standard PATH and LANG. Nothing of dlpd's own environment
// (its XDG_* folders lead to its state and token).
std::map<std::string, std::string> AccountEnvironment(const UnixAccount& account);

// Gives `path` to the account (not following a symlink). Internal error
// naming the path.
absl::Status GiveToAccount(const std::string& path, const UnixAccount& account);

}  // namespace dlp::server
