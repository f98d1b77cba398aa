#include "support/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/temp_dir.h"

extern char** environ;

namespace dlp::testing {
namespace {

std::vector<std::string> BuildEnv(const RunOptions& options) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& name : options.unset_env) merged.erase(name);
  for (const auto& [k, v] : options.env) merged[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : merged) out.push_back(k + "=" + v);
  return out;
}

std::string TempPath(const char* suffix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/dlp-run-XXXXXX" + suffix;
  int fd = mkstemps(pattern.data(), static_cast<int>(std::string(suffix).size()));
  if (fd < 0) throw std::runtime_error("mkstemps failed");
  close(fd);
  return pattern;
}

// Forks argv with stdout/stderr redirected to files; stdin from a pipe fed `input`.
int Spawn(const std::vector<std::string>& argv, const RunOptions& options,
          const std::string& out_path, const std::string& err_path) {
  std::string in_path = TempPath(".in");
  std::ofstream(in_path, std::ios::binary) << options.stdin_data;
  std::vector<std::string> env = BuildEnv(options);
  // Opened before fork: the parent unlinks the file right after forking.
  int in = open(in_path.c_str(), O_RDONLY | O_CLOEXEC);
  // Built before fork: the child of a threaded test may not allocate.
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    int out = open(out_path.c_str(), O_WRONLY | O_TRUNC);
    int err = open(err_path.c_str(), O_WRONLY | O_TRUNC);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    // execvpe searches PATH from the child's current environment.
    environ = envp.data();
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  if (in >= 0) close(in);
  unlink(in_path.c_str());
  return pid;
}

// A deadline here only catches hangs; the sanitizers slow programs 2 to 15
// times (a loaded machine more), so a sanitized build waits longer.
#ifdef DLP_TEST_SANITIZED
constexpr int kDeadlineScale = 4;
#else
constexpr int kDeadlineScale = 1;
#endif

RunResult WaitFor(int pid, absl::Duration timeout, const std::string& out_path,
                  const std::string& err_path) {
  RunResult result;
  int status = 0;
  const bool finished = Eventually(
      [&] { return waitpid(pid, &status, WNOHANG) == pid; }, timeout * kDeadlineScale);
  if (!finished) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    result.timed_out = true;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = ReadFileOrEmpty(out_path);
  result.err = ReadFileOrEmpty(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  return result;
}

}  // namespace

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string BinPath(const std::string& name) { return std::string(DLP_BIN_DIR) + "/" + name; }

RunResult Run(const std::vector<std::string>& argv, const RunOptions& options) {
  std::string out_path = TempPath(".out"), err_path = TempPath(".err");
  int pid = Spawn(argv, options, out_path, err_path);
  return WaitFor(pid, options.timeout, out_path, err_path);
}

Background::Background(const std::vector<std::string>& argv, const RunOptions& options)
    : out_path_(TempPath(".out")), err_path_(TempPath(".err")) {
  pid_ = Spawn(argv, options, out_path_, err_path_);
}

RunResult Background::Stop(absl::Duration grace) {
  if (result_) return *result_;
  kill(-pid_, SIGTERM);
  // Not reaped yet (WNOWAIT): the group stays for the SIGKILL of what is left.
  Eventually(
      [&] {
        siginfo_t info{};
        return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid_;
      },
      grace);
  kill(-pid_, SIGKILL);
  return Wait();
}

RunResult Background::Wait(absl::Duration timeout) {
  if (!result_) result_ = WaitFor(pid_, timeout, out_path_, err_path_);
  return *result_;
}

void Background::Signal(int signo) {
  if (!result_) kill(pid_, signo);  // a reaped pid may be another process's by now
}

std::string Background::OutputSoFar() const {
  return ReadFileOrEmpty(out_path_) + ReadFileOrEmpty(err_path_);
}

}  // namespace dlp::testing
