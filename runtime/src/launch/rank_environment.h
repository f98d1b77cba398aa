// The environment each rank gets: torchrun's variables, their DLP_* twins, the
// rendezvous store, and what the chosen framework expects (TF_CONFIG, HOROVOD_*,
// JAX_*). Documented in man/dlp-run.1; the names are contract/env_names.h's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "contract/names.h"
#include "launch/rank_layout.h"

namespace dlp::launch {

struct ClusterInfo {
  contract::Framework framework = contract::Framework::kNone;
  std::string master_addr;    // host of rank 0
  int master_port = 0;        // a free port on rank 0's host
  std::string store_addr;     // host:port of the launcher's rendezvous store
  std::string secret_hex;     // the job's secret (DLP_RDZV_SECRET); empty: inherited
  int round = 0;              // rendezvous round = restart count
  int max_restarts = 0;       // TORCHELASTIC_MAX_RESTARTS (contract::Group::job_max_restarts)
  // TORCHELASTIC_RUN_ID: the job's id, the same in every round; empty: "none"
  // (torchrun's own default without --rdzv-id).
  std::string run_id;
  std::vector<int> tf_ports;  // per rank, for TF_CONFIG's cluster spec
};

// The variables to set for `rank` (on top of the inherited environment).
std::map<std::string, std::string> RankEnvironment(const RankLayout& layout, const RankPlan& rank,
                                                   const ClusterInfo& cluster);

// TF_CONFIG for `rank`: {"cluster":{"chief":[..],"worker":[..],"ps":[..]},
// "task":{"type":..,"index":..}}; plain -np ranks are workers.
std::string TfConfig(const RankLayout& layout, const RankPlan& rank, const ClusterInfo& cluster);

}  // namespace dlp::launch
