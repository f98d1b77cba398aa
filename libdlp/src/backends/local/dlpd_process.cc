#include "backends/local/dlpd_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dlp_build_config.h"

namespace dlp::internal {
namespace {

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string SelfDir() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

}  // namespace

absl::StatusOr<std::string> FindDlpd(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (IsExecutable(explicit_path)) return explicit_path;
    return absl::NotFoundError(absl::StrCat("dlpd: ", explicit_path, " is not an executable"));
  }
  std::vector<std::string> tried;
  auto try_path = [&](const std::string& path) {
    tried.push_back(path);
    return IsExecutable(path);
  };
  if (const char* env = std::getenv("DLP_DLPD"); env != nullptr && *env != '\0') {
    if (try_path(env)) return std::string(env);
  }
  if (const std::string self = SelfDir(); !self.empty() && try_path(self + "/dlpd")) {
    return self + "/dlpd";
  }
  if (const std::string installed = absl::StrCat(DLP_INSTALL_BINDIR, "/dlpd");
      try_path(installed)) {
    return installed;
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      if (const std::string candidate = absl::StrCat(dir, "/dlpd"); IsExecutable(candidate)) {
        return candidate;
      }
    }
    tried.push_back("$PATH");
  }
  return absl::NotFoundError(absl::StrCat("cannot find the dlpd program (tried ",
                                          absl::StrJoin(tried, ", "),
                                          "); set DLP_DLPD to its path"));
}

absl::StatusOr<int> SpawnDetached(const std::vector<std::string>& argv,
                                  const std::string& log_path) {
  // Everything the children need is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int report[2];  // the grandchild's pid, then errno if exec fails
  if (pipe2(report, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t child = fork();
  if (child < 0) {
    close(report[0]);
    close(report[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (child == 0) {
    setsid();
    const pid_t daemon = fork();
    if (daemon != 0) {
      int pid = daemon;
      (void)!write(report[1], &pid, sizeof(pid));
      _exit(daemon < 0 ? 1 : 0);
    }
    const int in = open("/dev/null", O_RDONLY);
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || log < 0 || dup2(in, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0 ||
        dup2(report[1], 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) != 0) {
      int err = errno;
      (void)!write(report[1], &err, sizeof(err));
      _exit(127);
    }
    close_range(4, ~0U, 0);
    execv(args[0], args.data());
    int err = errno;
    (void)!write(3, &err, sizeof(err));
    _exit(127);
  }
  close(report[1]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  int values[2] = {0, 0};
  size_t got = 0;
  while (got < sizeof(values)) {
    const ssize_t n = read(report[0], reinterpret_cast<char*>(values) + got, sizeof(values) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(report[0]);
  if (got < sizeof(int) || values[0] <= 0) {
    return absl::InternalError(absl::StrCat("cannot start ", argv[0], ": fork failed"));
  }
  if (got == sizeof(values)) {
    return absl::InternalError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(values[1])));
  }
  return values[0];
}

bool ProcessAlive(int pid) {
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) return false;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

bool LockHeld(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);  // releases the shared lock if we got it
  return held;
}

std::string FileTail(const std::string& path, long offset, int max_lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(offset);
  std::ostringstream out;
  out << in.rdbuf();
  std::string text = out.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t start = text.size();
  for (int lines = 0; start > 0 && lines < max_lines; ++lines) {
    const size_t nl = text.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  if (start > 0) ++start;
  return text.substr(start);
}

}  // namespace dlp::internal
