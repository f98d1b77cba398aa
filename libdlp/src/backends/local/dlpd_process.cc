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
#include "base/process/find_program.h"
#include "base/process/spawn.h"
#include "dlp_build_config.h"

namespace dlp::internal {
namespace {

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
    if (base::IsExecutable(explicit_path)) return explicit_path;
    return absl::NotFoundError(absl::StrCat("dlpd: ", explicit_path, " is not an executable"));
  }
  std::vector<std::string> tried;
  auto try_path = [&](const std::string& path) {
    tried.push_back(path);
    return base::IsExecutable(path);
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
  if (std::getenv("PATH") != nullptr) {
    if (std::optional<std::string> found = base::FindProgram("dlpd")) return *found;
    tried.push_back("$PATH");
  }
  return absl::NotFoundError(absl::StrCat("cannot find the dlpd program (tried ",
                                          absl::StrJoin(tried, ", "),
                                          "); set DLP_DLPD to its path"));
}

absl::StatusOr<int> SpawnDetached(const std::vector<std::string>& argv,
                                  const std::string& log_path) {
  base::SpawnOptions options;
  options.argv = argv;
  options.search_path = false;
  options.stdout_stream = base::Stream::kFile;
  options.stderr_stream = base::Stream::kStdout;
  options.output_path = log_path;
  options.close_other_fds = true;
  options.detach = true;
  absl::StatusOr<base::SpawnedProcess> spawned = base::Spawn(options);
  if (!spawned.ok()) return spawned.status();
  return spawned->pid;
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
