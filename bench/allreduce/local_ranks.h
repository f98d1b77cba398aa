// Starts a dlp bench's ranks on this host when it runs outside dlp-run: a
// rendezvous store here, one forked process per rank with the rank environment.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.h"
#include "rendezvous/store.h"

namespace bench {

// Under dlp-run (RANK set) runs `run_rank` directly; otherwise forks args.ranks
// ranks. Returns 0 when every rank returned 0.
template <typename RunRank>
int RunOnLocalRanks(const Args& args, RunRank run_rank) {
  if (std::getenv("RANK") != nullptr) return run_rank(args);
  auto server = dlp::runtime::TcpStoreServer::Start("127.0.0.1", 0);
  if (!server.ok()) return 1;
  const std::string store = "127.0.0.1:" + std::to_string((*server)->port());
  std::vector<pid_t> pids;
  for (int r = 0; r < args.ranks; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(args.ranks).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(args.ranks).c_str(), 1);
      setenv("DLP_STORE_ADDR", store.c_str(), 1);
      _exit(run_rank(args));
    }
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace bench
