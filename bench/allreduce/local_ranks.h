// Starts a dlp bench's ranks on this host when it runs outside dlp-run: a
// rendezvous store here, one forked process per rank with the rank environment,
// bound to its share of the CPUs (bind_rank.h).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.h"
#include "fork_ranks.h"
#include "rendezvous/store.h"

namespace bench {

// Under dlp-run (RANK set) runs `run_rank` directly; otherwise forks args.ranks
// ranks. Returns 0 when every rank returned 0.
template <typename RunRank>
int RunOnLocalRanks(const Args& args, RunRank run_rank) {
  if (std::getenv("RANK") != nullptr) return run_rank(args);
  // Ranks are forked before the store's thread exists (a child of a threaded
  // process may inherit a lock that thread held); they read its port from a pipe.
  // The job's secret, drawn before the fork so that every rank holds it.
  auto secret = dlp::runtime::JobSecret::Generate();
  if (!secret.ok()) return 1;
  int port_pipe[2];
  if (pipe(port_pipe) != 0) return 1;
  std::vector<pid_t> pids;
  for (int r = 0; r < args.ranks; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      close(port_pipe[1]);
      int port = 0;
      if (read(port_pipe[0], &port, sizeof port) != sizeof port) _exit(1);
      if (!BindRank(r, args.ranks)) _exit(1);
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(args.ranks).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(args.ranks).c_str(), 1);
      setenv("DLP_STORE_ADDR", ("127.0.0.1:" + std::to_string(port)).c_str(), 1);
      setenv("DLP_RDZV_SECRET", secret->Hex().c_str(), 1);
      _exit(run_rank(args));
    }
    pids.push_back(pid);
  }
  close(port_pipe[0]);
  auto server = dlp::runtime::TcpStoreServer::Start("127.0.0.1", 0, *secret);
  if (server.ok()) {
    int port = (*server)->port();
    for (int r = 0; r < args.ranks; ++r) {
      [[maybe_unused]] ssize_t w = write(port_pipe[1], &port, sizeof port);
    }
  }
  close(port_pipe[1]);
  return WaitForRanks(pids) == 0 ? 0 : 1;
}

}  // namespace bench
