#include "launch/exec_rank.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/process/spawn.h"
#include "common/cpu_binding.h"
#include "contract/env_names.h"
#include "launch/signals.h"
#include "launch/ssh_command.h"

namespace dlp::launch {
namespace {

// A remote rank binds itself as the launcher would a local one, when the
// launcher said so in the rank's environment.
std::vector<int> CpusToBindTo(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  int local_rank = 0, local_size = 0;
  if (get(contract::env::kBindTo) != "core" ||
      !absl::SimpleAtoi(get(contract::env::kLocalRank), &local_rank) ||
      !absl::SimpleAtoi(get(contract::env::kLocalWorldSize), &local_size)) {
    return {};
  }
  return runtime::CpusForLocalRank(runtime::AllowedCpus(), local_rank, local_size);
}

// One line of stdin, read a byte at a time so that nothing after it is taken
// from the watchdog; nullopt at EOF before the newline.
std::optional<std::string> ReadStdinLine() {
  std::string line;
  char c;
  while (line.size() < 4096) {
    ssize_t got = read(0, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    if (c == '\n') return line;
    line.push_back(c);
  }
  return std::nullopt;
}

bool StdinIsChannel() {
  struct stat st;
  return fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

// Waits for `pid`; stops its group when told to (signal, or `watch_stdin` EOF).
int Supervise(pid_t pid, bool watch_stdin, absl::Duration grace) {
  const int signal_fd = InstallSignalPipe();
  absl::Time kill_at = absl::InfiniteFuture();
  while (true) {
    int wstatus = 0;
    pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) {
      kill(-pid, SIGKILL);  // leftovers of the rank's tree
      if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
      return WEXITSTATUS(wstatus);
    }
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {watch_stdin ? 0 : -1, POLLIN, 0}};
    int n = poll(fds, 2, 200);
    bool stop = false;
    if (n > 0 && fds[0].revents != 0) {
      bool child_exited = false;
      stop = DrainSignalPipe(signal_fd, &child_exited) != 0;
    }
    if (n > 0 && fds[1].revents != 0) {
      char buf[256];
      ssize_t got = read(0, buf, sizeof buf);
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        stop = true;  // the launcher (or its connection) is gone
        watch_stdin = false;
      }
    }
    if (stop && kill_at == absl::InfiniteFuture()) {
      kill(-pid, SIGTERM);
      kill_at = absl::Now() + grace;
    }
    if (absl::Now() >= kill_at) kill(-pid, SIGKILL);
  }
}

int StartAndSupervise(const std::map<std::string, std::string>& env, const std::string& workdir,
                      const std::vector<std::string>& command, bool watch_stdin,
                      absl::Duration grace, std::vector<int> cpus = {}) {
  InstallSignalPipe();
  base::SpawnOptions request;
  request.argv = command;
  request.env = env;
  request.grouping = base::Grouping::kProcessGroup;
  request.cpus = std::move(cpus);
  if (!workdir.empty() && access(workdir.c_str(), X_OK) == 0) request.workdir = workdir;
  auto child = base::Spawn(request);
  if (!child.ok()) {
    fprintf(stderr, "dlp-run: %s\n", std::string(child.status().message()).c_str());
    return 127;
  }
  return Supervise(child->pid, watch_stdin, grace);
}

}  // namespace

int RunExecRank(std::map<std::string, std::string> env, const std::string& workdir,
                const std::vector<std::string>& command, absl::Duration grace,
                bool secret_on_stdin) {
  if (secret_on_stdin) {
    std::optional<std::string> secret = ReadStdinLine();
    if (!secret) {
      fprintf(stderr, "dlp-run: the launcher sent no job secret on stdin\n");
      return 2;
    }
    env[contract::env::kRdzvSecret] = *secret;
  }
  printf("%s\n", kReadyMarker);
  fflush(stdout);
  return StartAndSupervise(env, workdir, command, StdinIsChannel(), grace, CpusToBindTo(env));
}

int RunForwardingSignals(const std::map<std::string, std::string>& env,
                         const std::vector<std::string>& command, absl::Duration grace) {
  return StartAndSupervise(env, "", command, false, grace);
}

}  // namespace dlp::launch
