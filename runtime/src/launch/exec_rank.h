// `dlp-run --exec-rank`: what ssh runs on a remote host. It announces itself
// with the ready marker, starts the command in its own process group with the
// rank's environment, and stays as a watchdog: when its stdin (the ssh
// channel) closes, or it gets SIGTERM/SIGHUP, it stops the command's group
// (TERM, grace, KILL). It exits with the command's code, or 128+N after signal N.
// With `secret_on_stdin` it first reads the job's secret, the first line of
// its stdin, into the rank's DLP_RDZV_SECRET (ssh_command.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace dlp::launch {

int RunExecRank(std::map<std::string, std::string> env, const std::string& workdir,
                const std::vector<std::string>& command, absl::Duration grace,
                bool secret_on_stdin);

// Runs `command` as a child with `env` added, forwarding SIGTERM/SIGINT to its
// process group, and returns its exit code (128+N after signal N). Used by
// the Slurm mode's rank 0, which must keep its rendezvous store alive.
int RunForwardingSignals(const std::map<std::string, std::string>& env,
                         const std::vector<std::string>& command, absl::Duration grace);

}  // namespace dlp::launch
