#include "launch/scheduler_task.h"

#include "absl/strings/str_cat.h"
#include "contract/env_names.h"
#include "contract/secret_shell.h"

namespace dlp::launch {

ClusterInfo TaskCluster(const SchedulerTask& task, contract::Framework framework, int round) {
  ClusterInfo cluster;
  cluster.framework = framework;
  cluster.master_addr = task.nodes[0];
  cluster.master_port = task.store_port + 1;
  cluster.store_addr = absl::StrCat(task.nodes[0], ":", task.store_port);
  cluster.round = round;
  cluster.run_id = task.job_id;
  for (int r = 0; r < task.world; ++r) cluster.tf_ports.push_back(task.store_port + 2 + r);
  return cluster;
}

absl::StatusOr<runtime::JobSecret> TaskSecret(const std::map<std::string, std::string>& env) {
  const char* name = contract::env::kRdzvSecret;
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " is not set: every task of the job needs the same secret to reach the "
              "rendezvous store; set it before srun, e.g. ",
        contract::kExportNewRdzvSecret));
  }
  return runtime::JobSecret::FromHex(it->second, name);
}

void PlaceTask(const SchedulerTask& task, RankLayout* layout) {
  layout->num_nodes = task.num_nodes;
  for (RankPlan& plan : layout->ranks) {
    const bool known = plan.rank < static_cast<int>(task.rank_hosts.size());
    plan.host = known ? task.rank_hosts[plan.rank] : task.nodes[0];
    plan.local = plan.rank == task.rank;
    plan.assign_gpus = false;
    plan.gpu_ids.clear();
    plan.visible_devices.reset();
  }
  RankPlan& self = layout->ranks[task.rank];
  self.host = task.host;
  self.local_rank = task.local_rank;
  self.local_world_size = task.local_world;
  self.node_rank = task.node_rank;
}

}  // namespace dlp::launch
