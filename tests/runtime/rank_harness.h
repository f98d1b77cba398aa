// Runs N ranks as forked processes that meet through a real TcpStoreServer
// (started here, in the test process) and talk over real transports. Each
// rank's body returns a Status; the harness collects them, and kills every
// rank if the group outlives its deadline, so a hang fails instead of
// blocking the suite.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "comm/communicator.h"
#include "rendezvous/store.h"

namespace dlp::runtime::testing {

struct RankOutcome {
  bool ok = false;
  bool timed_out = false;
  std::string message;  // the body's error, or why the process ended
};

struct RankGroup {
  std::vector<RankOutcome> ranks;
  bool AllOk() const {
    for (const RankOutcome& r : ranks) {
      if (!r.ok) return false;
    }
    return true;
  }
  std::string Describe() const {
    std::string out;
    for (size_t i = 0; i < ranks.size(); ++i) {
      absl::StrAppend(&out, "\n  rank ", i, ": ", ranks[i].ok ? "ok" : ranks[i].message);
    }
    return out;
  }
};

// The job secret of every test in this process: drawn once, before the ranks
// are forked (RunRanks), so that they all hold the store's.
inline const JobSecret& TestSecret() {
  static const JobSecret secret = *JobSecret::Generate();
  return secret;
}

// Options for a communicator of `size` ranks meeting at the store on `port`.
inline CommOptions TestOptions(int rank, int size, const std::string& transport,
                               const std::string& host_id = "h0") {
  CommOptions o;
  o.rank = rank;
  o.size = size;
  o.transport = transport;
  o.host_id = host_id;
  o.key_prefix = "r0/comm0";
  o.advertise_host = "127.0.0.1";
  o.timeout = absl::Seconds(10);
  o.secret = TestSecret();
  return o;
}

// Forks `n` ranks running body(rank, store_port). `on_started` runs in the
// parent after the fork with the ranks' pids (to kill one, for instance).
inline RankGroup RunRanks(int n, const std::function<absl::Status(int rank, int port)>& body,
                          absl::Duration timeout = absl::Seconds(60),
                          const std::function<void(const std::vector<pid_t>&)>& on_started = {}) {
  RankGroup group;
  group.ranks.resize(static_cast<size_t>(n));
  // The ranks are forked before the store's thread exists: a child forked from
  // a threaded process may inherit a lock held by that thread and hang. They
  // wait for the store's port on a pipe.
  const JobSecret& secret = TestSecret();
  int port_pipe[2];
  if (pipe(port_pipe) != 0) std::abort();
  std::vector<pid_t> pids;
  std::vector<int> pipes;
  for (int r = 0; r < n; ++r) {
    int fds[2];
    if (pipe(fds) != 0) std::abort();
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      close(port_pipe[1]);
      int port = 0;
      absl::Status s = read(port_pipe[0], &port, sizeof port) == sizeof port
                           ? body(r, port)
                           : absl::UnavailableError("the test's store did not start");
      std::string text = s.ok() ? "" : std::string(s.message());
      [[maybe_unused]] ssize_t w = write(fds[1], text.data(), text.size());
      close(fds[1]);
      _exit(s.ok() ? 0 : 1);
    }
    close(fds[1]);
    pids.push_back(pid);
    pipes.push_back(fds[0]);
  }
  close(port_pipe[0]);
  auto server = TcpStoreServer::Start("127.0.0.1", 0, secret);
  if (server.ok()) {
    int port = (*server)->port();
    for (int r = 0; r < n; ++r) {
      [[maybe_unused]] ssize_t w = write(port_pipe[1], &port, sizeof port);
    }
  }
  close(port_pipe[1]);
  if (on_started) on_started(pids);

  absl::Time deadline = absl::Now() + timeout;
  std::vector<std::string> messages(static_cast<size_t>(n));
  std::vector<bool> open(static_cast<size_t>(n), true);
  int still_open = n;
  bool timed_out = false;
  while (still_open > 0) {
    std::vector<pollfd> fds;
    std::vector<int> which;
    for (int r = 0; r < n; ++r) {
      if (open[static_cast<size_t>(r)]) {
        fds.push_back({pipes[static_cast<size_t>(r)], POLLIN, 0});
        which.push_back(r);
      }
    }
    int left_ms = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    poll(fds.data(), fds.size(), left_ms);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      size_t r = static_cast<size_t>(which[i]);
      char buf[4096];
      ssize_t got = read(pipes[r], buf, sizeof(buf));
      if (got > 0) {
        messages[r].append(buf, static_cast<size_t>(got));
      } else {
        open[r] = false;
        --still_open;
      }
    }
  }
  for (int r = 0; r < n; ++r) {
    size_t i = static_cast<size_t>(r);
    if (timed_out && open[i]) kill(pids[i], SIGKILL);
    int status = 0;
    waitpid(pids[i], &status, 0);
    close(pipes[i]);
    RankOutcome& out = group.ranks[i];
    out.timed_out = timed_out && open[i];
    out.ok = !out.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (out.timed_out) {
      out.message = "did not finish before the test's deadline (hang?)";
    } else if (WIFSIGNALED(status)) {
      out.message = absl::StrCat("killed by signal ", WTERMSIG(status));
    } else {
      out.message = messages[i];
    }
  }
  return group;
}

}  // namespace dlp::runtime::testing
