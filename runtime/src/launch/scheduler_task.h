// One task of a group as its scheduler starts it: a Slurm task (slurm.h) or a
// Kubernetes pod (kubernetes_pod.h) runs exactly one rank. What the scheduler
// tells the task (its rank, rank 0's host, the rendezvous port) is all that
// differs; group_task.h runs the rank the same way for both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/job_secret.h"

#include "contract/names.h"
#include "launch/rank_environment.h"
#include "launch/rank_layout.h"

namespace dlp::launch {

// Where the rank of a task comes from (`dlp-run --rank-source`).
enum class RankSource { kSlurm, kKubernetes };

struct SchedulerTask {
  int rank = 0, world = 1;
  int local_rank = 0, local_world = 1;
  int node_rank = 0, num_nodes = 1;
  std::vector<std::string> nodes;  // rank 0's host first (Slurm: the step's nodes, expanded)
  std::string host;                // this task's host
  // Every rank's host, by rank, where the scheduler names them (a pod's stable
  // host name); empty: only this task's and rank 0's are known.
  std::vector<std::string> rank_hosts;
  int store_port = 0;   // rank 0's rendezvous store
  int requeues = 0;     // SLURM_RESTART_COUNT: how often Slurm requeued the job
  int first_round = 0;  // the first attempt's round (a JobSet restart's count)
  std::string job_id;
};

// Where the ranks meet in round `round`: rank 0's host, the store's port, the
// next one for MASTER_PORT and one per rank after that for TF_CONFIG.
ClusterInfo TaskCluster(const SchedulerTask& task, contract::Framework framework, int round);

// The job's secret, which every task must be given alike (DLP_RDZV_SECRET in
// `env`): the task that hosts the store and the others cannot draw it
// themselves. dlp's batch scripts draw it before srun; FailedPrecondition,
// saying how to set it, when it is missing.
absl::StatusOr<runtime::JobSecret> TaskSecret(const std::map<std::string, std::string>& env);

// Puts `task.rank` on this task's host and every other rank on its known host
// (rank_hosts) or else rank 0's; GPUs stay the scheduler's to bind.
void PlaceTask(const SchedulerTask& task, RankLayout* layout);

}  // namespace dlp::launch
