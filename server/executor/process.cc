#include "server/executor/process.h"

#include <dirent.h>
#include <signal.h>

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/process/spawn.h"
#include "server/proc/proc_file.h"

namespace dlp::server {

std::map<std::string, pid_t> ProcessesByArgument(const std::string& flag) {
  // value -> (pid -> parent) of every process that carries it
  std::map<std::string, std::map<pid_t, pid_t>> carriers;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return {};
  while (const dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    absl::StatusOr<std::string> cmdline = ReadProcFile(ProcPath(pid, "cmdline"));
    if (!cmdline.ok()) continue;  // exited meanwhile
    std::vector<std::string> args = absl::StrSplit(*cmdline, '\0');
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] != flag) continue;
      if (std::optional<ProcStat> stat = ReadProcStat(pid))
        carriers[args[i + 1]][pid] = stat->parent;
    }
  }
  closedir(dir);
  // A process forked by the runner carries its command line until it executes
  // something else (dlp-run between fork and exec of a rank): the runner is
  // the one whose parent does not carry the same value.
  std::map<std::string, pid_t> found;
  for (const auto& [value, pids] : carriers) {
    for (const auto& [pid, parent] : pids) {
      if (!pids.contains(parent)) found[value] = pid;
    }
  }
  return found;
}

std::optional<int64_t> ProcessStartTime(pid_t pid) {
  std::optional<ProcStat> stat = ReadProcStat(pid);
  if (!stat) return std::nullopt;
  return stat->start_time;
}

bool SameProcessAlive(pid_t pid, int64_t start_time) {
  std::optional<int64_t> actual = ProcessStartTime(pid);
  return actual && *actual == start_time;
}

std::optional<pid_t> RootOf(const std::vector<pid_t>& pids) {
  std::optional<pid_t> root;
  for (pid_t pid : pids) {
    std::optional<ProcStat> stat = ReadProcStat(pid);
    if (!stat || std::find(pids.begin(), pids.end(), stat->parent) != pids.end()) continue;
    if (root) return std::nullopt;
    root = pid;
  }
  return root;
}

void SignalGroup(pid_t pgid, int signo) {
  if (pgid > 1) kill(-pgid, signo);
}

absl::StatusOr<pid_t> SpawnDetached(const SpawnOptions& options) {
  base::SpawnOptions spawn;
  spawn.argv = options.argv;
  spawn.env = options.extra_env;
  spawn.inherit_environment = options.inherit_environment;
  spawn.search_path = false;
  spawn.stdout_stream = base::Stream::kFile;
  spawn.stderr_stream = base::Stream::kStdout;
  spawn.output_path = options.output_path;
  spawn.grouping = base::Grouping::kSession;
  spawn.cgroup_procs = options.cgroup_procs;
  // The daemon's lock, database and sockets must not outlive it in the job.
  spawn.close_other_fds = true;
  if (options.run_as) {
    const UnixAccount& a = *options.run_as;
    spawn.run_as = base::Credentials{a.name, a.uid, a.gid, a.groups, a.home.empty() ? "/" : a.home};
  }
  absl::StatusOr<base::SpawnedProcess> spawned = base::Spawn(spawn);
  if (!spawned.ok()) return spawned.status();
  return spawned->pid;
}

}  // namespace dlp::server
