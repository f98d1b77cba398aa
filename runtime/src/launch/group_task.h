// `srun dlp-run --group GROUP.json ...` and `dlp-run --group GROUP.json
// --rank-source kubernetes` in a pod: each task runs one rank of the group
// (rank = SLURM_PROCID, or the pod's role offset + index: scheduler_task.h),
// numbered as the launcher numbers a group's ranks, with the same environment,
// log files and restart policy as under dlpd.
//
// Restarts across tasks: rank 0 hosts the rendezvous store and coordinates
// rounds through it. Every task reports its child's start and end as events
// (`dlp-run/r<round>/event/<n>`, n from an atomic counter); rank 0 reads them in
// order, keeps the status file, and decides the round once: "done" when every
// rank succeeded (or every rank of the success policy's roles), "restart" or
// "fail CODE" at the first failure before that, by the restart policy. Each
// task waits for that decision (`dlp-run/r<round>/decision`), stops its child
// if it still runs, and either exits with the job's exit code
// or, after the backoff, starts the next round. When Slurm requeues the job (a
// lost allocation), rank 0 continues the count from the previous status file.
// (In a pod the group has no restarts: the workload restarts the whole gang.)
#pragma once

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "contract/group.h"
#include "launch/scheduler_task.h"

namespace dlp::launch {

struct GroupTaskOptions {
  RankSource source = RankSource::kSlurm;
  contract::Group group;
  std::string log_dir;      // DIR/<replica>.log; empty: the rank's output on stdout/stderr
  std::string status_file;  // written by rank 0 only; empty: none
  std::string trace_dir;    // DLP_TRACE_DIR for the ranks; empty: the log folder
  // Copy the rank's trace lines into the output (launch/trace_relay.h); without
  // a trace or log folder the rank traces into a private temporary folder.
  bool relay_traces = false;
  absl::Duration grace = absl::Seconds(10);
  absl::Duration start_timeout = absl::Seconds(120);  // for reaching rank 0's store
  int rdzv_port = 0;  // 0: from SLURM_JOB_ID, or kDefaultPodStorePort in a pod
};

// Runs this task's rank through every round. Returns the task's exit code: 0
// when the group succeeded, the failed rank's code (128+N for signal N) when it
// failed, 128+N when this task was stopped by signal N, 2 for a bad setup.
// `notify` receives progress lines (restarts, failures).
int RunGroupTask(const GroupTaskOptions& options,
                 const std::function<void(const std::string&)>& notify);

}  // namespace dlp::launch
