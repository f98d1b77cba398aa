#include "server/proc/session_processes.h"

#include <dirent.h>

#include <optional>

#include "absl/strings/numbers.h"
#include "server/proc/proc_file.h"

namespace dlp::server {

std::vector<pid_t> SessionProcesses(pid_t session, uid_t uid) {
  std::vector<pid_t> found;
  if (session <= 1) return found;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return found;
  while (const dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    std::optional<ProcStat> stat = ReadProcStat(pid);
    if (!stat || stat->session != session) continue;
    if (ProcessRealUid(pid) == uid) found.push_back(pid);
  }
  closedir(dir);
  return found;
}

}  // namespace dlp::server
