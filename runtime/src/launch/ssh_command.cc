#include "launch/ssh_command.h"

#include <unistd.h>

#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/env_names.h"
#include "contract/shell_quote.h"

namespace dlp::launch {

std::string SelfDirectory() {
  char buf[PATH_MAX] = {0};
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::vector<std::string> SshArgv(const SshOptions& options, const std::string& host,
                                 const std::map<std::string, std::string>& env,
                                 const std::string& workdir,
                                 const std::vector<std::string>& command) {
  std::vector<std::string> argv = {options.program, "-o", "BatchMode=yes", "-T"};
  if (options.port > 0) {
    argv.push_back("-p");
    argv.push_back(absl::StrCat(options.port));
  }
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  // "--": whatever the host is, ssh never reads it as an option (ParseHostList
  // refuses a leading '-' already; this holds for any other caller).
  argv.push_back("--");
  argv.push_back(host);

  const std::string dir = options.remote_path.empty() ? SelfDirectory() : options.remote_path;
  std::vector<std::string> remote = {dir.empty() ? "dlp-run" : dir + "/dlp-run", "--exec-rank"};
  if (!workdir.empty()) {
    remote.push_back("--workdir");
    remote.push_back(workdir);
  }
  for (const auto& [key, value] : env) {
    if (key == contract::env::kRdzvSecret) {
      remote.push_back(kSecretOnStdinFlag);
      continue;
    }
    remote.push_back("--env");
    remote.push_back(key + "=" + value);
  }
  remote.push_back("--");
  remote.insert(remote.end(), command.begin(), command.end());
  std::vector<std::string> quoted;
  for (const std::string& word : remote) quoted.push_back(contract::ShellQuote(word));
  argv.push_back(absl::StrJoin(quoted, " "));
  return argv;
}

}  // namespace dlp::launch
