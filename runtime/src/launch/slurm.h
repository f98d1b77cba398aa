// dlp-run inside a Slurm task: each task is one rank. Rank, world size and
// local rank come from SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID; MASTER_ADDR
// is the first node of the step's node list; rank 0 hosts the rendezvous store
// on a port derived from SLURM_JOB_ID (or --rdzv-port), and MASTER_PORT is the
// next port. This file reads Slurm's variables and runs plain
// `srun dlp-run -- COMMAND`; group_task.h runs a group file's ranks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/names.h"
#include "launch/rank_environment.h"
#include "launch/rank_layout.h"
#include "launch/scheduler_task.h"

namespace dlp::launch {

// Expands Slurm's compressed host lists: "node[1-3,05],gpu7" -> node1 node2
// node3 node05 gpu7 (zero padding kept; several bracket groups allowed).
absl::StatusOr<std::vector<std::string>> ExpandNodeList(const std::string& list);

// Whether the environment describes a Slurm task (SLURM_PROCID and SLURM_NTASKS).
bool InSlurmTask(const std::map<std::string, std::string>& env);

// Reads the task from Slurm's variables; `rdzv_port` 0 derives the store's
// port from the job id. InvalidArgument naming what is missing.
absl::StatusOr<SchedulerTask> ReadSlurmTask(const std::map<std::string, std::string>& env,
                                            int rdzv_port);

struct SlurmRank {
  std::map<std::string, std::string> env;  // variables to add for the command
  int rank = 0;
  int store_port = 0;
};

// The rank's variables from Slurm's; `rdzv_port` 0 derives it from the job id.
absl::StatusOr<SlurmRank> SlurmRankEnvironment(const std::map<std::string, std::string>& slurm_env,
                                               const std::string& framework, int rdzv_port);

// Runs the rank: rank 0 hosts the store and runs the command as its child;
// the others exec it. Returns the exit code (only rank 0 and errors return).
int RunSlurmRank(const std::vector<std::string>& command, const std::string& framework,
                 int rdzv_port);

}  // namespace dlp::launch
