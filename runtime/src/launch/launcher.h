// Runs a group of ranks to completion: starts them (forked locally, over ssh
// elsewhere) around a rendezvous store, relays their output, keeps the status
// file, stops the group when one rank fails, and restarts it as the policy
// allows; with a success policy, stops the rest once its roles succeeded.
// SIGTERM/SIGINT to the launcher stop every rank (TERM, grace, KILL).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "contract/group.h"
#include "launch/rank_layout.h"
#include "launch/ssh_command.h"

namespace dlp::launch {

struct LaunchOptions {
  contract::Group group;
  std::vector<HostSlots> hosts;  // empty: every rank on this machine
  std::vector<int> gpus;
  bool gpus_given = false;
  std::string log_dir;      // empty: "[rank] line" on dlp-run's stdout/stderr
  std::string status_file;  // empty: none
  std::string trace_dir;    // DLP_TRACE_DIR for the ranks; empty: the log folder
  absl::Duration grace = absl::Seconds(10);
  absl::Duration start_timeout = absl::Seconds(120);
  SshOptions ssh;
  // --bind-to core: each rank on its own share of the CPUs (common/cpu_binding.h).
  bool bind_to_core = false;
};

struct LaunchResult {
  int exit_code = 0;   // 0 all ranks succeeded, 1 the group failed, 128+N cancelled by signal N
  std::string reason;  // names the failed rank, host and exit code or signal
};

// `notify` receives progress lines (a restart, a stop); it may be empty.
// Errors are for a launch that could not begin (bad log folder, no store).
absl::StatusOr<LaunchResult> RunGroup(const LaunchOptions& options,
                                      std::function<void(const std::string&)> notify);

}  // namespace dlp::launch
