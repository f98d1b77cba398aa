#include "support/unix_user.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/subprocess.h"

namespace dlp::testing {

long GroupId(const std::string& name) {
  const group* g = getgrnam(name.c_str());
  return g == nullptr ? -1 : static_cast<long>(g->gr_gid);
}

std::string EnsureTestUser(const std::string& name, const std::vector<std::string>& groups,
                           TestUser* user) {
  if (geteuid() != 0) return "needs root (adds Unix accounts and runs dlpd as root)";
  for (const std::string& g : groups) {
    RunResult r = Run({"groupadd", "-f", g});
    if (r.exit_code != 0) return absl::StrCat("groupadd ", g, ": ", r.err);
  }
  if (getpwnam(name.c_str()) == nullptr) {
    std::vector<std::string> argv = {"useradd", "--no-create-home", "--shell", "/bin/sh"};
    if (!groups.empty()) argv.insert(argv.end(), {"-G", absl::StrJoin(groups, ",")});
    argv.push_back(name);
    RunResult r = Run(argv);
    if (r.exit_code != 0 && getpwnam(name.c_str()) == nullptr) {
      return absl::StrCat("useradd ", name, ": ", r.err);
    }
  } else if (!groups.empty()) {
    Run({"usermod", "-aG", absl::StrJoin(groups, ","), name});
  }
  const passwd* pw = getpwnam(name.c_str());
  if (pw == nullptr) return absl::StrCat("no account ", name, " after useradd");
  *user = {name, pw->pw_uid, pw->pw_gid};
  return "";
}

void MakeSearchableUpwards(const std::string& path) {
  for (std::filesystem::path p = std::filesystem::absolute(path);; p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) == 0) chmod(p.c_str(), (st.st_mode & 07777) | S_IXOTH);
    if (p == p.parent_path()) break;
  }
}

std::vector<std::string> AsUser(const TestUser& user, std::vector<std::string> argv) {
  std::vector<std::string> out = {"setpriv",
                                  absl::StrCat("--reuid=", user.uid),
                                  absl::StrCat("--regid=", user.gid),
                                  "--clear-groups",
                                  "--inh-caps=-all",
                                  "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace dlp::testing
