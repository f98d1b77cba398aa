#include "server/executor/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/proc/proc_file.h"

extern char** environ;

namespace dlp::server {

std::map<std::string, pid_t> ProcessesByArgument(const std::string& flag) {
  std::map<std::string, pid_t> found;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return found;
  while (const dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    absl::StatusOr<std::string> cmdline = ReadProcFile(ProcPath(pid, "cmdline"));
    if (!cmdline.ok()) continue;  // exited meanwhile
    std::vector<std::string> args = absl::StrSplit(*cmdline, '\0');
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == flag && ProcessStartTime(pid)) found[args[i + 1]] = pid;
    }
  }
  closedir(dir);
  return found;
}

std::optional<int64_t> ProcessStartTime(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  absl::StatusOr<std::string> read = ReadProcFile(ProcPath(pid, "stat"));
  if (!read.ok()) return std::nullopt;
  const std::string& stat = *read;
  // The command name (field 2) may hold spaces and parentheses: parse after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state); starttime is field 22, i.e. fields[19].
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X") return std::nullopt;
  int64_t start = 0;
  if (!absl::SimpleAtoi(fields[19], &start)) return std::nullopt;
  return start;
}

bool SameProcessAlive(pid_t pid, int64_t start_time) {
  std::optional<int64_t> actual = ProcessStartTime(pid);
  return actual && *actual == start_time;
}

bool GroupAlive(pid_t pgid) { return pgid > 0 && (kill(-pgid, 0) == 0 || errno == EPERM); }

void SignalGroup(pid_t pgid, int signo) {
  if (pgid > 1) kill(-pgid, signo);
}

absl::StatusOr<pid_t> SpawnDetached(const SpawnOptions& options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("empty command");
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    absl::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq != absl::string_view::npos) env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [k, v] : options.extra_env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, options.output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // The daemon's lock, database and sockets must not outlive it in the job.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", options.argv[0], ": ", strerror(rc)));
  }
  return pid;
}

std::string SignalName(int signo) {
  const char* abbrev = sigabbrev_np(signo);
  if (abbrev == nullptr) return absl::StrCat("signal ", signo);
  return absl::StrCat("SIG", abbrev);
}

}  // namespace dlp::server
