// Ranks of a bench as forked processes on this host, each bound to its share
// of the CPUs (bind_rank.h).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "bind_rank.h"

namespace bench {

// Waits for every process; the number that did not exit with 0.
inline int WaitForRanks(const std::vector<pid_t>& pids) {
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed;
}

// Forks `ranks` bound processes, each exiting with run(rank); the number that failed.
template <typename Run>
int ForkBoundRanks(int ranks, Run run) {
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(BindRank(r, ranks) ? run(r) : 1);
    pids.push_back(pid);
  }
  return WaitForRanks(pids);
}

}  // namespace bench
