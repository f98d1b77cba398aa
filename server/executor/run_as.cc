#include "server/executor/run_as.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dlp::server {

absl::StatusOr<UnixAccount> LookupUnixAccount(const std::string& name) {
  std::vector<char> buffer(16384);
  passwd entry;
  passwd* found = nullptr;
  int rc = 0;
  while ((rc = getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE)
    buffer.resize(buffer.size() * 2);
  if (found == nullptr) {
    return absl::InvalidArgumentError(
        rc == 0 ? absl::StrCat("no Unix account \"", name, "\" on this host")
                : absl::StrCat("cannot look up Unix account \"", name, "\": ", strerror(rc)));
  }
  UnixAccount account;
  account.name = found->pw_name;
  account.uid = found->pw_uid;
  account.gid = found->pw_gid;
  account.home = found->pw_dir != nullptr ? found->pw_dir : "";
  account.shell =
      found->pw_shell != nullptr && *found->pw_shell != '\0' ? found->pw_shell : "/bin/sh";
  if (account.uid == 0 || account.gid == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unix account \"", name, "\" is root (uid or gid 0); tenants' jobs never run as root"));
  }
  int count = 32;
  std::vector<gid_t> groups(count);
  while (getgrouplist(account.name.c_str(), account.gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count) + 32);
    count = static_cast<int>(groups.size());
  }
  groups.resize(static_cast<size_t>(count));
  for (gid_t g : groups) {
    if (g == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unix account \"", name, "\" is in group root (gid 0); tenants' jobs never run as root"));
    }
  }
  account.groups = std::move(groups);
  return account;
}

absl::Status CheckRunAsPrivilege() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read this process's capabilities: ", strerror(errno)));
  }
  std::vector<std::string> missing;
  for (auto [cap, name] : {std::pair{CAP_SETUID, "CAP_SETUID"},
                           {CAP_SETGID, "CAP_SETGID"},
                           {CAP_CHOWN, "CAP_CHOWN"},
                           {CAP_KILL, "CAP_KILL"},
                           {CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH"}}) {
    if ((data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap)) == 0) missing.push_back(name);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("missing ", absl::StrJoin(missing, ", "),
                   " (run dlpd as root, or grant these capabilities)"));
}

std::map<std::string, std::string> AccountEnvironment(const UnixAccount& account) {
  return {{"HOME", account.home.empty() ? "/" : account.home},
          {"USER", account.name},
          {"LOGNAME", account.name},
          {"SHELL", account.shell},
          {"PATH", "/usr/local/bin:/usr/bin:/bin"},
          {"LANG", "C.UTF-8"}};
}

absl::Status GiveToAccount(const std::string& path, const UnixAccount& account) {
  if (fchownat(AT_FDCWD, path.c_str(), account.uid, account.gid, AT_SYMLINK_NOFOLLOW) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot give ", path, " to ", account.name, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace dlp::server
